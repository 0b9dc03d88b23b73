# Sanitizer and fuzzing builds (docs/fuzzing.md). Both need clang (Debian's clang package):
#   -DASSAY_SANITIZE=ON  every target built with AddressSanitizer + UndefinedBehaviorSanitizer
#                        (`make test-sanitize` runs the C++ tests this way, in build-sanitize/).
#   -DASSAY_FUZZ=ON      the same, plus libFuzzer coverage, and the fuzz/fuzz_<parser> targets
#                        (`make fuzz`, in build-fuzz/).
# Undefined behaviour is fatal (-fno-sanitize-recover), so a test or fuzz input that triggers
# it fails instead of printing a line nobody reads.
option(ASSAY_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer (clang)" OFF)
option(ASSAY_FUZZ "Build the libFuzzer targets in fuzz/ with ASan and UBSan (clang)" OFF)

if(ASSAY_SANITIZE OR ASSAY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ASSAY_SANITIZE / ASSAY_FUZZ need clang: -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(ASSAY_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                            -fno-omit-frame-pointer)
  add_compile_options(${ASSAY_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
  if(ASSAY_FUZZ)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endif()

# The fuzz targets: fuzz/fuzz_<name>.cpp, each a libFuzzer program linked to the layer of its
# parser: core's readers (CSV, NPY, NIfTI) or count's (models, spec, DIMACS, ONNX, VNN-LIB).
function(assay_fuzz_layer name out)
  if(name MATCHES "^fuzz_(csv|npy|nifti)$")
    set(${out} assay_core PARENT_SCOPE)
  else()
    set(${out} assay_count PARENT_SCOPE)
  endif()
endfunction()

function(assay_fuzz_targets)
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/fuzz_*.cpp)
  set(all)
  foreach(src ${srcs})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    assay_fuzz_layer(${name} layer)
    target_link_libraries(${name} PRIVATE ${layer})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
    list(APPEND all ${name})
  endforeach()
  add_custom_target(fuzz_targets DEPENDS ${all})
endfunction()

# Regression inputs: every folder tests/data/fuzz/<name>/ is replayed through fuzz/<name>.cpp
# built as an ordinary program (no libFuzzer), as the ctest fuzz_replay_<name>.
function(assay_fuzz_replay_tests)
  file(GLOB dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/tests/data/fuzz/*)
  foreach(dir ${dirs})
    if(NOT IS_DIRECTORY ${dir})
      continue()
    endif()
    get_filename_component(name ${dir} NAME)
    set(src ${PROJECT_SOURCE_DIR}/fuzz/${name}.cpp)
    if(NOT EXISTS ${src})
      message(FATAL_ERROR "tests/data/fuzz/${name}/ has no fuzz target fuzz/${name}.cpp")
    endif()
    add_executable(${name}_replay ${src})
    target_compile_definitions(${name}_replay PRIVATE ASSAY_FUZZ_REPLAY)
    assay_fuzz_layer(${name} layer)
    target_link_libraries(${name}_replay PRIVATE ${layer})
    add_test(NAME fuzz_replay_${name} COMMAND ${name}_replay ${dir})
    set_property(GLOBAL APPEND PROPERTY ASSAY_CPP_TESTS ${name}_replay)
  endforeach()
endfunction()
