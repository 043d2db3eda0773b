# Finds the Python 3 that the module is built for, and pybind11 for it.
#
# The interpreter: Python3_EXECUTABLE or Python_EXECUTABLE when given; otherwise the first of
# `python3` on PATH and /usr/bin/python3 that imports NumPy. So a Debian machine whose PATH starts
# with a pyenv shim without NumPy builds for Debian's python3 (the one with python3-numpy, -dask,
# -pytest), and the GPU machine's python3 (pip's NumPy 2 and pybind11) is taken as it is.
# pybind11: its CMake package (Debian's pybind11-dev), or the one `python3 -m pybind11 --cmakedir`
# names (pip's). Sets HISTOSCOPE_PYTHON_FOUND.
set(HISTOSCOPE_PYTHON_FOUND OFF)

if(NOT Python_EXECUTABLE AND Python3_EXECUTABLE)
  set(Python_EXECUTABLE "${Python3_EXECUTABLE}" CACHE FILEPATH "Python 3 interpreter of the module")
endif()
if(NOT Python_EXECUTABLE)
  find_program(_hs_path_python3 NAMES python3 NO_CACHE)
  foreach(candidate IN ITEMS "${_hs_path_python3}" /usr/bin/python3)
    if(candidate AND EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import numpy" RESULT_VARIABLE _hs_rc OUTPUT_QUIET ERROR_QUIET)
      if(_hs_rc EQUAL 0)
        set(Python_EXECUTABLE "${candidate}" CACHE FILEPATH "Python 3 interpreter of the module")
        break()
      endif()
    endif()
  endforeach()
endif()
if(NOT Python_EXECUTABLE)
  message(STATUS "HistoScope: no python3 with NumPy found, the Python module is not built")
  return()
endif()

find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
if(NOT Python_FOUND)
  message(STATUS "HistoScope: ${Python_EXECUTABLE} has no development files (python3-dev), the Python module is not built")
  return()
endif()

execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                OUTPUT_VARIABLE _hs_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _hs_rc ERROR_QUIET)
set(_hs_pybind11_hints)
if(_hs_rc EQUAL 0)
  list(APPEND _hs_pybind11_hints "${_hs_pybind11_dir}")
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG QUIET HINTS ${_hs_pybind11_hints})
if(NOT pybind11_FOUND)
  message(STATUS "HistoScope: pybind11 not found (pybind11-dev, or pip's pybind11), the Python module is not built")
  return()
endif()

# Where `cmake --install` puts the package, relative to the prefix: a folder that this Python
# searches under /usr and /usr/local alike (Debian: lib/python3.X/dist-packages; elsewhere the
# interpreter's own platlib scheme).
if(NOT HISTOSCOPE_PYTHON_INSTALL_DIR)
  execute_process(COMMAND "${Python_EXECUTABLE}" -c [=[
import os, sys, sysconfig
if "deb_system" in sysconfig.get_scheme_names():
    print("lib/python3.%d/dist-packages" % sys.version_info[1])
else:
    p = sysconfig.get_path("platlib", "posix_prefix", vars={"base": "/P", "platbase": "/P"})
    print(os.path.relpath(p, "/P"))
]=] OUTPUT_VARIABLE _hs_pydir OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(HISTOSCOPE_PYTHON_INSTALL_DIR "${_hs_pydir}" CACHE STRING "Install folder of the histoscope package, relative to the prefix")
endif()

set(HISTOSCOPE_PYTHON_FOUND ON)
message(STATUS "HistoScope: Python module for ${Python_EXECUTABLE} (${Python_VERSION}), pybind11 ${pybind11_VERSION}, "
               "installed to <prefix>/${HISTOSCOPE_PYTHON_INSTALL_DIR}")
