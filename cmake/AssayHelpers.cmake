# assay_layer(name): static library assay_<name> from src/<name>/*.cpp, public headers in include/.
function(assay_layer name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  add_library(assay_${name} STATIC ${srcs})
  target_include_directories(assay_${name}
    PUBLIC ${PROJECT_SOURCE_DIR}/include
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
endfunction()

# assay_add_test(file): one GoogleTest executable per test file, linked to every layer; the
# executable is named after the folder and file (tests/cpp/core/test_csv.cpp -> core_test_csv).
function(assay_add_test src)
  get_filename_component(stem ${src} NAME_WE)
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(layer ${dir} NAME)
  set(target ${layer}_${stem})
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE assay_batch GTest::gtest_main GTest::gmock)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/cpp)
  target_compile_definitions(${target} PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                               ASSAY_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60)
endfunction()
