// Test helpers shared by every C++ test.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

/// Expects `statement` to throw `exception_type` whose what() equals `expected` exactly.
#define EXPECT_THROW_MSG(statement, exception_type, expected)                      \
  do {                                                                             \
    bool assay_thrown_ = false;                                                    \
    try {                                                                          \
      statement;                                                                   \
    } catch (const exception_type& e) {                                            \
      assay_thrown_ = true;                                                        \
      EXPECT_EQ(std::string(e.what()), std::string(expected));                     \
    }                                                                              \
    EXPECT_TRUE(assay_thrown_) << "expected " #exception_type " from " #statement; \
  } while (0)

/// The whole file as bytes ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
