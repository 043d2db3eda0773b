# The .deb, as a user gets it: CPack makes it from this build, dpkg-deb lists what it holds,
# `dpkg -x` unpacks it in a scratch root, and the unpacked programs run from there:
# `histoscope-cli --version`, a PNG counted through the package's own image module (the codec
# modules are found relative to the program, io/CodecModule.h), `python3 -c "import histoscope"` (counting, and finding the CLI
# that came with it), and the man pages and completion are there.
# The engine in it links into an outside project (find_package(HistoScope) from the unpacked root).
# cmake -DBUILD=<build dir> -DWORK=<scratch> -DPYTHON=<python3> -DCXX=<compiler> -P check_deb.cmake
foreach(var BUILD WORK PYTHON CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_deb.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(expect text pattern what)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: '${pattern}' not found in:\n${text}")
  endif()
endfunction()

get_filename_component(cmake_dir ${CMAKE_COMMAND} DIRECTORY)
find_program(CPACK cpack HINTS ${cmake_dir} REQUIRED)
run("cpack" ${CPACK} -G DEB --config ${BUILD}/CPackConfig.cmake -B ${WORK})
file(GLOB debs ${WORK}/*.deb)
list(LENGTH debs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "cpack made ${n} .deb files: ${debs}")
endif()

run("dpkg-deb --field" dpkg-deb --field ${debs} Package Version Depends)
expect("${run_output}" "Package: histoscope" "the package's name")
expect("${run_output}" "python3-numpy" "its Depends")
expect("${run_output}" "libqt6widgets6" "its Depends (from dpkg-shlibdeps)")
run("dpkg-deb --contents" dpkg-deb --contents ${debs})
set(contents "${run_output}")
foreach(path ./usr/bin/histoscope\n ./usr/bin/histoscope-cli ./usr/share/applications/histoscope.desktop
             ./usr/share/icons/hicolor/scalable/apps/histoscope.svg ./usr/share/man/man1/histoscope.1
             ./usr/share/man/man1/histoscope-cli.1 ./usr/share/bash-completion/completions/histoscope-cli
             /histoscope/_native /histoscope/libhistoscope_video.so /histoscope/libhistoscope_image.so ./usr/include/histoscope/HistogramEngine.h HistoScopeConfig.cmake histoscope.pc)
  expect("${contents}" "${path}" "the package's files")
endforeach()

set(root ${WORK}/root)
run("dpkg -x" dpkg -x ${debs} ${root})
run("histoscope-cli --version" ${root}/usr/bin/histoscope-cli --version)
expect("${run_output}" "^histoscope-cli [0-9]+\\.[0-9]+\\.[0-9]+" "histoscope-cli --version")
message(STATUS "unpacked: ${run_output}")
# LD_DEBUG names the module ld.so loaded: the unpacked one, not this build's (its fallback).
set(ENV{LD_DEBUG} libs)
execute_process(COMMAND ${root}/usr/bin/histoscope-cli histogram ${CMAKE_CURRENT_LIST_DIR}/../../docs/screenshots/live.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
unset(ENV{LD_DEBUG})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the unpacked histoscope-cli could not count a PNG (${rc}):\n${out}\n${err}")
endif()
expect("${out}" "live.png: [0-9]+x[0-9]+" "the unpacked histoscope-cli on a PNG")
expect("${err}" "calling init: ${root}/usr/lib/[^\n]*histoscope/libhistoscope_image.so" "the module the unpacked CLI loaded")

file(GLOB packages LIST_DIRECTORIES true ${root}/usr/lib/python3*/dist-packages)
list(LENGTH packages n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "the package has ${n} Python package folders: ${packages}")
endif()
set(ENV{PYTHONPATH} ${packages})
set(ENV{HISTOSCOPE_CLI} "")
# (Newlines, not semicolons: a CMake list would split the program.)
run("import histoscope" ${PYTHON} -c "import histoscope, histoscope.dask as hd\nprint(histoscope.__file__)\nprint(histoscope.bincount([0, 2, 2]).tolist())\nprint(hd.cli_path())")
expect("${run_output}" "^${packages}/histoscope/__init__.py\n\\[1, 0, 2\\]\n${root}/usr/bin/histoscope-cli" "the unpacked module")
message(STATUS "unpacked: ${run_output}")

file(READ ${root}/usr/share/man/man1/histoscope-cli.1 page)
expect("${page}" "\\.SH NAME" "histoscope-cli.1")
expect("${page}" "batch PATH" "histoscope-cli.1")

run("configure the consumer" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/consumer -B ${WORK}/consumer
    -DCMAKE_PREFIX_PATH=${root}/usr -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
run("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer)
run("run the consumer" ${WORK}/consumer/consumer 3 1 4 1 5 9 2 6)
expect("${run_output}" "^counts 0 2 1 1 1 1 1 0 above 1 median 3" "the packaged engine, linked from outside")
message(STATUS "packaged engine: ${run_output}")
