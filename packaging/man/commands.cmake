# Writes a help2man include file holding each command's own --help, so that histoscope-cli(1)
# documents every command's options, not only the list of commands.
# cmake -DCLI=<histoscope-cli> -DOUTPUT=<file> -P commands.cmake
set(text "[COMMANDS]\n")
foreach(command histogram batch merge scope)
  execute_process(COMMAND ${CLI} ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${command} --help failed (${rc})")
  endif()
  # The program's own path in its usage line reads as the command a user types.
  string(REGEX REPLACE "Usage: [^ ]+" "Usage: histoscope-cli ${command}" help "${help}")
  string(REPLACE "\\" "\\\\" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS \"histoscope-cli ${command}\"\n.nf\n${help}.fi\n")
endforeach()
execute_process(COMMAND ${CLI} bench --help OUTPUT_VARIABLE help ERROR_VARIABLE help_err)
string(APPEND text ".SS \"histoscope-cli bench\"\n.nf\n${help}${help_err}.fi\n")
string(APPEND text "[SEE ALSO]\nhistoscope(1), histoscope-bench(1). The record schema, statistics and exit codes: docs/SCHEMA.md; the Python module: python3 -c \"help('histoscope')\".\n")
file(WRITE ${OUTPUT} "${text}")
