// Messages on stderr and stdout with file names as their bytes (io/NativePath.h), so a name
// that is not UTF-8 is printed as `ls` prints it rather than as replacement characters.
#pragma once

#include <QString>

void printError(const QString& text);
// False when stdout could not take the text (a full disk, a closed pipe).
bool printOutput(const QString& text);
