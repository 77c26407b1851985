#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "data/arff.hpp"

namespace p2b::data {
namespace {

// The error's message, or "" when the text parses.
std::string error_of(const std::string& text, const ArffLimits& limits = {}) {
  try {
    parse_arff(text, limits);
  } catch (const ArffError& e) {
    return e.what();
  }
  return "";
}

const char* const kHeader = "@relation t\n@attribute a numeric\n@attribute b {0,1}\n@data\n";

TEST(Arff, DenseRowsWithCommentsQuotesBlankLinesAndCrlf) {
  const ArffTable t = parse_arff(
      "% a comment\r\n"
      "@RELATION 'my data'\r\n"
      "\r\n"
      "@Attribute 'first value' REAL\r\n"
      "@attribute \"x y\" integer\n"
      "@ATTRIBUTE colour {red, 'dark blue', green}\n"
      "@attribute lab { 0 , 1 }\n"
      "@DATA\n"
      "% comment inside the data\n"
      "1.5, -2, 'dark blue', 1\n"
      "\n"
      "+3e-1,4,red,0\r\n"
      "?,0,green,1\n");
  EXPECT_EQ(t.relation, "my data");
  ASSERT_EQ(t.cols(), 4u);
  EXPECT_EQ(t.attributes[0].name, "first value");
  EXPECT_EQ(t.attributes[1].name, "x y");
  EXPECT_EQ(t.attributes[2].type, AttributeType::kNominal);
  EXPECT_EQ(t.attributes[2].nominal_values,
            (std::vector<std::string>{"red", "dark blue", "green"}));
  EXPECT_FALSE(t.attributes[2].is_binary_nominal());
  EXPECT_TRUE(t.attributes[3].is_binary_nominal());
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(t.at(0, 0), 1.5);
  EXPECT_EQ(t.at(0, 1), -2.0);
  EXPECT_EQ(t.at(0, 2), 1.0);  // index of 'dark blue'
  EXPECT_EQ(t.at(0, 3), 1.0);
  EXPECT_EQ(t.at(1, 0), 0.3);
  EXPECT_EQ(t.at(1, 2), 0.0);
  EXPECT_TRUE(std::isnan(t.at(2, 0)));  // '?' is missing
}

TEST(Arff, NumericNominalCellsAreReadAsWrittenNotCheckedAgainstTheSet) {
  // yeast's header declares {0,1} where its rows hold features.
  const ArffTable t = parse_arff(std::string(kHeader) + "1,0.25\n");
  EXPECT_EQ(t.at(0, 1), 0.25);
}

TEST(Arff, SparseRows) {
  const ArffTable t = parse_arff(
      "@relation s\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n@data\n"
      "{0 1.5, 2 y}\n{}\n{ 1 -4 }\n");
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(t.values, (std::vector<double>{1.5, 0, 1, 0, 0, 0, 0, -4, 0}));
}

TEST(Arff, MalformedInputNamesTheLine) {
  EXPECT_EQ(error_of(std::string(kHeader) + "1,0\n1,0,1\n"),
            "<memory>:6: 3 values, the header declares 2 attributes");
  EXPECT_EQ(error_of(std::string(kHeader) + "abc,1\n"),
            "<memory>:5: column 1 ('a'): 'abc' is not a finite number");
  EXPECT_EQ(error_of(std::string(kHeader) + "nan,1\n"),
            "<memory>:5: column 1 ('a'): 'nan' is not a finite number");
  EXPECT_EQ(error_of(std::string(kHeader) + "1e999,1\n"),
            "<memory>:5: column 1 ('a'): '1e999' is not a finite number");
  EXPECT_EQ(error_of("@relation t\n@attribute s string\n@data\n"),
            "<memory>:2: attribute 's': unsupported type 'string' (numeric, real, integer or "
            "{nominal values})");
  EXPECT_EQ(error_of("@attribute a numeric\n@attribute a real\n@data\n"),
            "<memory>:2: attribute 'a' declared twice");
  EXPECT_EQ(error_of("@relation t\n@data\n1\n"), "<memory>:2: @data before any @attribute");
  EXPECT_EQ(error_of("@relation t\n@attribute a numeric\n"), "<memory>: no @data section");
  EXPECT_EQ(error_of("@relation t\n1,2\n"),
            "<memory>:2: expected @relation, @attribute or @data before the data");
  EXPECT_EQ(error_of("@attribute 'a numeric\n@data\n"),
            "<memory>:1: unterminated quote in attribute name");
  EXPECT_EQ(error_of("@attribute c {x,y\n@data\n"), "<memory>:1: attribute 'c': missing '}'");
  EXPECT_EQ(error_of("@attribute c {x,y}\n@data\nz\n"),
            "<memory>:3: column 1 ('c'): 'z' is not one of its declared values");
  EXPECT_EQ(error_of(std::string(kHeader) + "{2 1}\n"),
            "<memory>:5: sparse index '2' is not in 0..1");
  EXPECT_EQ(error_of(std::string(kHeader) + "{1 1, 0 1}\n"),
            "<memory>:5: sparse indices must increase (0)");
  EXPECT_EQ(error_of(std::string(kHeader) + "{1 1\n"),
            "<memory>:5: sparse row without a closing '}'");
  EXPECT_EQ(error_of(std::string(kHeader) + "'1,0\n"), "<memory>:5: unterminated quote");
  const char nul[] = "@attribute a numeric\n@data\n1\0\n";
  EXPECT_EQ(error_of(std::string(nul, sizeof nul - 1)), "<memory>:3: NUL byte in the text");
  EXPECT_EQ(error_of("@foo bar\n"), "<memory>:1: unknown declaration '@foo'");
}

TEST(Arff, LimitsAreEnforced) {
  ArffLimits limits;
  limits.max_rows = 2;
  EXPECT_EQ(error_of(std::string(kHeader) + "1,0\n1,0\n1,0\n", limits),
            "<memory>:7: more than 2 data rows");
  limits = {};
  limits.max_attributes = 1;
  EXPECT_EQ(error_of(kHeader, limits), "<memory>:3: more than 1 attributes");
  limits = {};
  limits.max_cells = 3;
  EXPECT_EQ(error_of(std::string(kHeader) + "1,0\n1,0\n", limits), "<memory>:6: more than 3 cells");
  limits = {};
  limits.max_line_bytes = 10;
  EXPECT_EQ(error_of(std::string(kHeader), limits), "<memory>:1: line longer than 10 bytes");
}

TEST(Arff, MissingFileIsAnError) {
  try {
    load_arff("/nonexistent/file.arff");
    FAIL() << "no error";
  } catch (const ArffError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/file.arff: cannot open");
    EXPECT_EQ(e.line(), 0u);
  }
}

}  // namespace
}  // namespace p2b::data
