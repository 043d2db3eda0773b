# Fails when a source includes a layer it must not see (docs/ARCHITECTURE.md):
#   widgets/   Qt only: nothing from app/, io/, gpu/ (histoscope/) or OpenCV;
#   app/core/  no Qt Gui or Widgets headers, nothing from app/cli, app/gui or widgets/;
#   app/cli/   nothing from app/gui or widgets/, no Qt Gui or Widgets headers;
#   io/        nothing from app/ or widgets/.
set(rules
  "widgets|\"app/|\"io/|histoscope/|opencv2|<QtConcurrent"
  "app/core|\"app/cli/|\"app/gui/|\"widgets/|<QImage|<QWidget|<QColor|<QPixmap|<QPainter|<QtGui|<QtWidgets"
  "app/cli|\"app/gui/|\"widgets/|<QImage|<QWidget|<QColor|<QPixmap|<QPainter|<QtGui|<QtWidgets"
  "io|\"app/|\"widgets/")
set(failures "")
foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(POP_FRONT parts folder)
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS includes)
      foreach(pattern IN LISTS parts)
        string(FIND "${line}" "${pattern}" at)
        if(NOT at EQUAL -1)
          file(RELATIVE_PATH rel "${ROOT}" "${source}")
          list(APPEND failures "${rel}: ${line}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layering violations:\n  ${text}")
endif()
message(STATUS "layering: every include respects the layers")
