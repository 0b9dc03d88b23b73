# Installation (`make install` = `cmake --install build`) and the Debian package (`make package`
# = CPack DEB). Included at the end of CMakeLists.txt, once every target exists. docs/install.md
# describes what users get; the layout, relative to CMAKE_INSTALL_PREFIX (default /usr/local):
#
#   bin/assay                               the command line
#   lib/libassay_<layer>.so.<version>       one shared library per layer (assay_layer)
#   include/assay/<layer>/*.hpp             the public headers
#   lib/cmake/assay/                        find_package(assay CONFIG): assay::core, assay::metrics...
#   lib/pkgconfig/assay.pc                  pkg-config --cflags --libs assay
#   share/man/man1/assay.1.gz               the man page, from the CLI's own --help (help2man)
#   share/bash-completion/completions/assay subcommands and options
#   lib/python3.X/dist-packages/assay       the Python package (ASSAY_PYTHON_INSTALL_DIR)
#
# Everything finds its libraries through a relative RPATH ($ORIGIN/...), so an install into any
# prefix (a temporary folder in the tests) works without LD_LIBRARY_PATH.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(ASSAY_INSTALLED_LAYERS GLOBAL PROPERTY ASSAY_LAYERS)
set(ASSAY_LAYER_TARGETS)
foreach(layer IN LISTS ASSAY_INSTALLED_LAYERS)
  list(APPEND ASSAY_LAYER_TARGETS assay_${layer})
endforeach()

# --- Where the Python package goes -------------------------------------------------------------
# The interpreter's own layout: Debian's python3 reads <prefix>/lib/python3.X/dist-packages for
# /usr/local (and /usr); other Pythons use site-packages. The compiled module is specific to this
# Python version, so the versioned folder is the right one.
if(NOT ASSAY_PYTHON_INSTALL_DIR)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import sysconfig; print(sysconfig.get_path('platlib'))"
    OUTPUT_VARIABLE assay_platlib OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(assay_platlib MATCHES "dist-packages$")
    set(assay_site dist-packages)
  else()
    set(assay_site site-packages)
  endif()
  set(ASSAY_PYTHON_INSTALL_DIR
      "${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/${assay_site}"
      CACHE STRING "Python package folder, relative to the install prefix")
endif()

# --- RPATHs: relative, so the installed tree can move --------------------------------------------
# from_dir: where `target` is installed (relative to the prefix, or absolute).
function(assay_relative_rpath target from_dir)
  if(IS_ABSOLUTE "${from_dir}")
    file(RELATIVE_PATH to_lib "${from_dir}" "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  else()
    file(RELATIVE_PATH to_lib "/${from_dir}" "/${CMAKE_INSTALL_LIBDIR}")
  endif()
  if(to_lib STREQUAL "")
    set(to_lib ".")
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_lib}")
endfunction()

if(BUILD_SHARED_LIBS)
  foreach(target IN LISTS ASSAY_LAYER_TARGETS)
    # 0.x: every minor version may change the ABI, so the SONAME carries MAJOR.MINOR.
    set_target_properties(${target} PROPERTIES
      VERSION ${PROJECT_VERSION}
      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
    assay_relative_rpath(${target} ${CMAKE_INSTALL_LIBDIR})
  endforeach()
  assay_relative_rpath(assay_cli ${CMAKE_INSTALL_BINDIR})
  assay_relative_rpath(_assay ${ASSAY_PYTHON_INSTALL_DIR}/assay)
endif()

# --- Man page and bash completion, generated from the CLI's own help ------------------------------
find_program(HELP2MAN help2man REQUIRED)
set(ASSAY_MAN_PAGE ${PROJECT_BINARY_DIR}/share/man/assay.1.gz)
set(ASSAY_COMPLETION ${PROJECT_BINARY_DIR}/share/bash-completion/assay)
set(ASSAY_CLI_DOCS ${PROJECT_SOURCE_DIR}/cmake/install/cli_docs.py)
add_custom_command(
  OUTPUT ${ASSAY_MAN_PAGE} ${ASSAY_COMPLETION}
  COMMAND ${Python3_EXECUTABLE} ${ASSAY_CLI_DOCS} man $<TARGET_FILE:assay_cli> ${ASSAY_MAN_PAGE}
          --help2man ${HELP2MAN}
  COMMAND ${Python3_EXECUTABLE} ${ASSAY_CLI_DOCS} completion $<TARGET_FILE:assay_cli>
          ${ASSAY_COMPLETION}
  DEPENDS assay_cli ${ASSAY_CLI_DOCS}
  COMMENT "Generating the man page and bash completion from assay --help"
  VERBATIM)
add_custom_target(assay_cli_docs ALL DEPENDS ${ASSAY_MAN_PAGE} ${ASSAY_COMPLETION})

# --- A reinstall replaces the previous one ----------------------------------------------------
# Headers, Python modules and libraries that an older assay installed and this one no longer
# has would otherwise linger (and a stale header or module would still be picked up).
install(CODE "
  set(root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  file(REMOVE_RECURSE \"\${root}/${CMAKE_INSTALL_INCLUDEDIR}/assay\"
                      \"\${root}/${ASSAY_PYTHON_INSTALL_DIR}/assay\"
                      \"\${root}/${CMAKE_INSTALL_LIBDIR}/cmake/assay\")
  file(GLOB old_libraries \"\${root}/${CMAKE_INSTALL_LIBDIR}/libassay_*\")
  if(old_libraries)
    file(REMOVE \${old_libraries})
  endif()")

# --- The command line, its man page and completion ----------------------------------------------
install(TARGETS assay_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${ASSAY_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${ASSAY_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# --- Libraries, headers, CMake package, pkg-config -----------------------------------------------
install(TARGETS ${ASSAY_LAYER_TARGETS} EXPORT assayTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/assay DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(layer IN LISTS ASSAY_INSTALLED_LAYERS)
  set_target_properties(assay_${layer} PROPERTIES EXPORT_NAME ${layer})
endforeach()

set(ASSAY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/assay)
install(EXPORT assayTargets NAMESPACE assay:: DESTINATION ${ASSAY_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/assayConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/assayConfig.cmake INSTALL_DESTINATION ${ASSAY_CMAKE_DIR})
# 0.x: a consumer built against 0.1 needs 0.1 (see SOVERSION above).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/assayConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/assayConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/assayConfigVersion.cmake
        DESTINATION ${ASSAY_CMAKE_DIR})

# pkg-config: the prefix is only known at install time (CPack installs under /usr), so the file is
# written then. Libraries from the top layer down, as a static linker wants them.
set(ASSAY_PC_LIBS)
foreach(layer IN LISTS ASSAY_INSTALLED_LAYERS)
  list(PREPEND ASSAY_PC_LIBS -lassay_${layer})
endforeach()
list(JOIN ASSAY_PC_LIBS " " ASSAY_PC_LIBS)
set(ASSAY_PC_REQUIRES "fmt nlohmann_json gmpxx")
set(ASSAY_PC_PREFIX "@ASSAY_PC_PREFIX@")  # kept for the install-time pass
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/assay.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/assay.pc.in
               @ONLY)
install(CODE "
  set(ASSAY_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/pkgconfig/assay.pc.in\"
                 \"${PROJECT_BINARY_DIR}/pkgconfig/install/assay.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/pkgconfig/install/assay.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")

# --- The Python package -----------------------------------------------------------------------
foreach(name ${ASSAY_PY_FILES})  # relative to python/assay, subpackages in their folders
  get_filename_component(folder ${name} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/python/assay/${name}
          DESTINATION ${ASSAY_PYTHON_INSTALL_DIR}/assay/${folder})
endforeach()
install(TARGETS _assay LIBRARY DESTINATION ${ASSAY_PYTHON_INSTALL_DIR}/assay)

# --- The Debian package (`make package`) ------------------------------------------------------
include(cmake/install/AssayDebian.cmake)
