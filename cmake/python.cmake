# The Python module (src/python/, docs/python.md#build): finds an interpreter with its headers
# and pybind11, then builds build/python/linksim/ (the package: the compiled _linksim module,
# the pure-Python files and the shipped topologies), installs it into the prefix's
# site-packages, and tells the test suite where it is (LINKSIM_PYTHON_FOUND,
# LINKSIM_PYTHON_PACKAGE_ROOT).

# The tests run under the interpreter the module is built for, so without an explicit
# -DPython3_EXECUTABLE take the first python3 that can run pytest: the one on PATH, else the
# system's (a pyenv or conda python3 ahead on PATH often lacks Debian's python3-pytest).
if(NOT Python3_EXECUTABLE)
  find_program(LINKSIM_PATH_PYTHON3 python3)
  foreach(candidate ${LINKSIM_PATH_PYTHON3} /usr/bin/python3)
    if(EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import pytest"
        RESULT_VARIABLE linksim_no_pytest OUTPUT_QUIET ERROR_QUIET)
      if(linksim_no_pytest EQUAL 0)
        set(Python3_EXECUTABLE ${candidate} CACHE FILEPATH "Python interpreter of the module")
        break()
      endif()
    endif()
  endforeach()
endif()

find_package(Python3 COMPONENTS Interpreter Development.Module)
if(Python3_FOUND)
  find_package(pybind11 2.6 CONFIG QUIET)
endif()
if(NOT Python3_FOUND OR NOT pybind11_FOUND)
  message(STATUS "linksim: Python module not built (needs python3-dev and pybind11-dev)")
  set(LINKSIM_PYTHON_FOUND OFF)
  return()
endif()
message(STATUS "linksim: Python module for ${Python3_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
set(LINKSIM_PYTHON_FOUND ON)

# The static library goes into a shared object.
set_target_properties(linksim PROPERTIES POSITION_INDEPENDENT_CODE ON)

set(LINKSIM_PYTHON_PACKAGE_ROOT ${PROJECT_BINARY_DIR}/python)
# Where `cmake --install` puts the package, relative to the prefix: the prefix's own
# site-packages as that Python lays it out (lib/python3.11/site-packages).
if(NOT LINKSIM_PYTHON_INSTALL_DIR)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
    "import sysconfig; print(sysconfig.get_path('platlib', 'posix_prefix', vars={'base': '', 'platbase': ''}).lstrip('/'))"
    OUTPUT_VARIABLE linksim_site OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(LINKSIM_PYTHON_INSTALL_DIR ${linksim_site} CACHE PATH
    "Install directory of the Python package, relative to the prefix")
endif()

add_subdirectory(${PROJECT_SOURCE_DIR}/src/python ${PROJECT_BINARY_DIR}/python-module)
