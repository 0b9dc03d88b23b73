// Test helpers shared by every C++ test.
#pragma once

#include <gtest/gtest.h>

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
