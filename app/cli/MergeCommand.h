#pragma once

#include <QStringList>

// `histoscope-cli merge FILE...`: adds the records of batch outputs (shards) exactly, after
// checking every record against the schema and every input for its summary.
int runMergeCommand(const QStringList& arguments);
