# The worked example at the top of every public header, compiled and run (test header_examples):
# cmake/header_examples.py extracts them into one source file per layer at build time, whenever a
# header, the setups or the script change; a header without an example fails the build, naming it.
# Layers not built here (mpi without an MPI library) are listed by the test, not compiled.
function(assay_header_examples)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/assay/*.hpp)
  get_property(layers GLOBAL PROPERTY ASSAY_LAYERS)
  set(dir ${PROJECT_BINARY_DIR}/header_examples_src)
  set(outputs ${dir}/not_built.cpp)
  foreach(layer ${layers})
    list(APPEND outputs ${dir}/examples_${layer}.cpp)
  endforeach()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/header_examples.py
            ${PROJECT_SOURCE_DIR} ${dir} ${layers}
    DEPENDS ${headers} ${PROJECT_SOURCE_DIR}/cmake/header_examples.py
            ${PROJECT_SOURCE_DIR}/tests/header_examples/setups.inc
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Extracting the worked examples of include/assay/**/*.hpp"
    VERBATIM)
  add_executable(header_examples ${PROJECT_SOURCE_DIR}/tests/header_examples/main.cpp ${outputs})
  list(TRANSFORM layers PREPEND assay_ OUTPUT_VARIABLE libraries)
  target_link_libraries(header_examples PRIVATE ${libraries})
  target_include_directories(header_examples PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  # Examples name results they do not use again; that is their point, not a slip.
  target_compile_options(header_examples PRIVATE -Wno-unused-variable -Wno-unused-but-set-variable
                                                 -Wno-unused-result -Wno-unused-value)
  add_test(NAME header_examples COMMAND header_examples)
  set_property(GLOBAL APPEND PROPERTY ASSAY_CPP_TESTS header_examples)
endfunction()
