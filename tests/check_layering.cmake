# Fails when a source includes a layer it must not see (docs/ARCHITECTURE.md). Every #include line
# of a folder's .h, .cpp, .cuh and .cu files is searched for each forbidden text:
#   widgets/      Qt only: nothing from app/, common/, io/, gpu/ (histoscope/) or OpenCV;
#   app/core/     no Qt Gui or Widgets headers, nothing from app/cli, app/gui or widgets/;
#   app/cli/      nothing from app/gui or widgets/, no Qt Gui or Widgets headers;
#   common/       the error shape: Qt Core and the engine's public types only: nothing from app/,
#                 io/ or widgets/, no Qt Gui or Widgets header, no OpenCV;
#   io/           nothing from app/ or widgets/;
#   gpu/          the engine: nothing from app/, io/, widgets/ or bench/, no Qt header (<Q...>),
#                 no OpenCV;
#   gpu/include/  the public headers: no CUDA header (no include naming cuda, in any case) and
#                 nothing reached through "../";
#   bench/        nothing from app/, io/, widgets/, and nothing of the engine's private code
#                 (gpu/cuda/, gpu/src/): the public headers and gpu/testing/ only; no Qt header,
#                 no CUDA, CUB or Thrust header; OpenCV only in bench/opencv_compare.cpp, the
#                 OpenCV comparison tool.
#   python/       the Python module: the engine's public headers and pybind11 only: nothing from
#                 app/, io/, widgets/, bench/ or the engine's private code, no Qt, OpenCV or CUDA.
# Run: cmake -DROOT=<source tree> -P tests/check_layering.cmake (the `layering` test).
set(failures "")

# forbid(FOLDER [TEXTS text...] [ICASE text...] [EXCEPT file...]): an include line of FOLDER may
# contain none of TEXTS, nor, compared in lower case, any of ICASE (given in lower case). The
# files of EXCEPT (relative to ROOT) are not searched for this rule.
function(forbid folder)
  cmake_parse_arguments(PARSE_ARGV 1 RULE "" "" "TEXTS;ICASE;EXCEPT")
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cuh"
       "${ROOT}/${folder}/*.cu")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH rel "${ROOT}" "${source}")
    list(FIND RULE_EXCEPT "${rel}" excepted)
    if(NOT excepted EQUAL -1)
      continue()
    endif()
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS includes)
      string(TOLOWER "${line}" lower)
      set(hit OFF)
      foreach(text IN LISTS RULE_TEXTS)
        string(FIND "${line}" "${text}" at)
        if(NOT at EQUAL -1)
          set(hit ON)
        endif()
      endforeach()
      foreach(text IN LISTS RULE_ICASE)
        string(FIND "${lower}" "${text}" at)
        if(NOT at EQUAL -1)
          set(hit ON)
        endif()
      endforeach()
      if(hit)
        list(APPEND failures "${rel}: ${line}  (${folder}/)")
      endif()
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

set(qtGui "<QImage" "<QWidget" "<QColor" "<QPixmap" "<QPainter" "<QtGui" "<QtWidgets")
forbid(widgets TEXTS "\"app/" "\"io/" "\"common/" "histoscope/" "opencv2" "<QtConcurrent")
forbid(app/core TEXTS "\"app/cli/" "\"app/gui/" "\"widgets/" ${qtGui})
forbid(app/cli TEXTS "\"app/gui/" "\"widgets/" ${qtGui})
forbid(common TEXTS "\"app/" "\"io/" "\"widgets/" "opencv2" ${qtGui})
forbid(io TEXTS "\"app/" "\"widgets/")
# A layer's folder named from the tree's root ("app/...") or through a relative path ("../app/...").
forbid(gpu TEXTS "\"app/" "/app/" "\"io/" "/io/" "\"widgets/" "/widgets/" "\"bench/" "/bench/" "<Q" "opencv2")
forbid(gpu/include TEXTS "\"../" ICASE "cuda")
forbid(bench TEXTS "\"app/" "/app/" "\"io/" "/io/" "\"widgets/" "/widgets/" "gpu/cuda/" "gpu/src/" "<Q"
       "<cuda" "\"cuda" "<cub/" "<thrust/")
forbid(bench TEXTS "opencv2" EXCEPT bench/opencv_compare.cpp)
forbid(python TEXTS "\"app/" "/app/" "\"io/" "/io/" "\"widgets/" "/widgets/" "\"bench/" "/bench/" "gpu/cuda/" "gpu/src/"
       "\"common/" "<Q" "opencv2" "<cuda" "\"cuda" "<cub/" "<thrust/")

if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layering violations:\n  ${text}")
endif()
message(STATUS "layering: every include respects the layers")
