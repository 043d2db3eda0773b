// Messages on stderr and stdout with file names as their bytes (io/NativePath.h), so a name
// that is not UTF-8 is printed as `ls` prints it rather than as replacement characters.
// Control characters inside a message (a newline or a terminal escape in a file name) are
// written escaped, as `ls -b` and git do, so a name can neither retitle the terminal nor break
// a list into false lines. How much is said is set once per run: -q keeps notes back, -v adds
// the details (what was skipped and why).
#pragma once

#include <QString>

enum class Verbosity { Quiet, Normal, Verbose };
void setVerbosity(Verbosity verbosity);
Verbosity verbosity();

// One message: every control character escaped but a final line end.
void printError(const QString& text);
// A note (what the run noticed but the user may not need: no CUDA device, -j capped): not with -q.
void printNotice(const QString& text);
// A detail said only with -v.
void printVerbose(const QString& text);
// Text of the program's own, written as it is: usage text, the progress bar's carriage returns.
void printErrorText(const QString& text);
// False when stdout could not take the text (a full disk, a closed pipe).
bool printOutput(const QString& text);
// `text` with its control characters escaped (\n, \r, \t, \xHH; C1 controls too).
QString escapeControls(const QString& text);
