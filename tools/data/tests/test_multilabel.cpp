#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "data/multilabel.hpp"

namespace p2b::data {
namespace {

std::string error_of(const ArffTable& t, const std::string& spec) {
  try {
    split_labels(t, LabelSpec::parse(spec));
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

// Two features then two labels in the rows; the header lists the labels first.
const char* const kSwapped =
    "@relation s\n@attribute L1 {0,1}\n@attribute L2 {0,1}\n@attribute f1 numeric\n"
    "@attribute f2 numeric\n@data\n"
    "0.5,2,1,0\n-1,3,1,1\n0.25,4,0,0\n";

TEST(LabelSpec, Parses) {
  EXPECT_EQ(LabelSpec::parse("auto").kind, LabelSpec::Kind::kDetect);
  EXPECT_EQ(LabelSpec::parse("").kind, LabelSpec::Kind::kDetect);
  const LabelSpec last = LabelSpec::parse("last:14");
  EXPECT_EQ(last.kind, LabelSpec::Kind::kLast);
  EXPECT_EQ(last.count, 14u);
  EXPECT_EQ(LabelSpec::parse("first:2").kind, LabelSpec::Kind::kFirst);
  const LabelSpec prefix = LabelSpec::parse("prefix:Class");
  EXPECT_EQ(prefix.kind, LabelSpec::Kind::kPrefix);
  EXPECT_EQ(prefix.prefix, "Class");
  EXPECT_THROW(LabelSpec::parse("last:0"), DataError);
  EXPECT_THROW(LabelSpec::parse("last:x"), DataError);
  EXPECT_THROW(LabelSpec::parse("middle:3"), DataError);
  EXPECT_THROW(LabelSpec::parse("prefix:"), DataError);
}

TEST(MultiLabel, DetectsLabelsAtTheOtherEndThanTheHeaderSays) {
  const LabeledTable t = split_labels(parse_arff(kSwapped), {});
  EXPECT_EQ(t.label_names, (std::vector<std::string>{"L1", "L2"}));
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"f1", "f2"}));
  EXPECT_EQ(t.features, (std::vector<double>{0.5, 2, -1, 3, 0.25, 4}));
  EXPECT_EQ(t.labels, (std::vector<uint8_t>{1, 0, 1, 1, 0, 0}));
  EXPECT_EQ(t.note,
            "labels: last 2 of 4 columns, detected from the values; the header declares its 2 "
            "{0,1} attributes first but the data rows hold them last; header names rotated to "
            "match (labels L1..L2, features f1..f2)");
  const LabelStats s = label_stats(t);
  EXPECT_EQ(s.rows, 3u);
  EXPECT_EQ(s.n_labels, 2u);
  EXPECT_DOUBLE_EQ(s.cardinality, 1.0);
  EXPECT_EQ(s.rows_without_label, 1u);
}

TEST(MultiLabel, ExplicitSpecsAreCheckedAgainstTheValues) {
  const ArffTable table = parse_arff(kSwapped);
  EXPECT_EQ(split_labels(table, LabelSpec::parse("last:2")).labels, split_labels(table, {}).labels);
  EXPECT_EQ(error_of(table, "first:2"),
            "row 1, column 1 ('L1'): label value 0.500000 is not 0 or 1 (the header order may "
            "not match the data: try labels=auto)");
  EXPECT_EQ(error_of(table, "prefix:L").substr(0, 35), "row 1, column 1 ('L1'): label value");
  EXPECT_EQ(error_of(table, "last:4"), "4 label columns leave no feature in 4 columns");
  EXPECT_EQ(error_of(table, "prefix:zz"), "no column matches the label spec");
}

TEST(MultiLabel, DetectionWithoutAHeaderHint) {
  const std::string head =
      "@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@data\n";
  const LabeledTable t = split_labels(parse_arff(head + "0.5,1,0\n2,0,0\n"), {});
  EXPECT_EQ(t.label_names, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(t.note, "labels: last 2 of 3 columns, detected from the values");
  EXPECT_EQ(error_of(parse_arff(head + "1,0.5,0\n0,2,1\n"), "auto"),
            "ambiguous label columns (leading {0,1}-valued run 1, trailing 1 of 3 columns): pass "
            "labels=first:N, last:N or prefix:NAME");
  EXPECT_EQ(error_of(parse_arff(head + "1,0,1\n"), "auto"),
            "every column is {0,1}-valued: pass labels=first:N or last:N");
  EXPECT_EQ(split_labels(parse_arff(head + "1,0.5,2\n"), {}).label_names,
            (std::vector<std::string>{"a"}));
  EXPECT_EQ(error_of(parse_arff(head + "0.5,2,3\n"), "auto"),
            "no {0,1}-valued label columns (leading {0,1}-valued run 0, trailing 0 of 3 columns): "
            "pass labels=first:N, last:N or prefix:NAME");
}

TEST(MultiLabel, HeaderCountWithoutMatchingDataIsRefused) {
  const ArffTable t = parse_arff(
      "@attribute L {0,1}\n@attribute f numeric\n@attribute g numeric\n@data\n0.5,2,3\n");
  EXPECT_EQ(error_of(t, "auto"),
            "the header declares 1 {0,1} attributes but no end of the data rows has that many "
            "{0,1}-valued columns (leading {0,1}-valued run 0, trailing 0 of 3 columns): pass "
            "labels=first:N or last:N");
}

TEST(MultiLabel, MissingFeatureIsRefused) {
  const ArffTable t = parse_arff("@attribute f numeric\n@attribute L {0,1}\n@data\n?,1\n");
  EXPECT_EQ(error_of(t, "last:1"), "row 1, column 1 ('f'): missing feature value");
}

TEST(Contexts, NonNegativeRowsSummingToOne) {
  const ArffTable table = parse_arff(
      "@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@attribute k numeric\n"
      "@attribute L {0,1}\n@data\n"
      "1,5,-3,7,1\n2,4,0,7,0\n3,9,1,7,1\n-4,1,2,7,0\n");
  const LabeledTable t = split_labels(table, LabelSpec::parse("last:1"));
  for (size_t dim = 1; dim <= 4; ++dim) {
    const std::vector<float> x = make_contexts(t, dim);
    ASSERT_EQ(x.size(), 4 * dim);
    for (size_t r = 0; r < 4; ++r) {
      float sum = 0;
      for (size_t j = 0; j < dim; ++j) {
        EXPECT_GE(x[r * dim + j], 0.0f);
        sum += x[r * dim + j];
      }
      EXPECT_NEAR(sum, 1.0f, 1e-6f);
    }
  }
  EXPECT_THROW(make_contexts(t, 0), DataError);
  EXPECT_THROW(make_contexts(t, 5), DataError);
}

TEST(Contexts, ConstantFeaturesGiveUniformRows) {
  const LabeledTable t = split_labels(
      parse_arff("@attribute a numeric\n@attribute b numeric\n@attribute L {0,1}\n@data\n"
                 "3,-1,1\n3,-1,0\n"),
      LabelSpec::parse("last:1"));
  EXPECT_EQ(make_contexts(t, 2), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

class Yeast : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::ifstream(P2B_YEAST_ARFF)) {
      GTEST_SKIP() << "yeast.arff not found at " << P2B_YEAST_ARFF
                   << " (set P2B_DATA_DIR or the cache variable P2B_YEAST_ARFF)";
    }
  }
};

TEST_F(Yeast, LoadsWithLabelsDetectedAtTheEnd) {
  const ArffTable table = load_arff(P2B_YEAST_ARFF);
  EXPECT_EQ(table.rows, 2417u);
  EXPECT_EQ(table.cols(), 117u);
  const MultiLabelSet s = make_multilabel_set(table, {}, 10);
  EXPECT_EQ(s.rows, 2417u);
  EXPECT_EQ(s.n_labels, 14u);
  EXPECT_EQ(s.dim, 10u);
  EXPECT_EQ(s.label_names.front(), "Class1");
  EXPECT_EQ(s.label_names.back(), "Class14");
  EXPECT_EQ(s.note,
            "labels: last 14 of 117 columns, detected from the values; the header declares its 14 "
            "{0,1} attributes first but the data rows hold them last; header names rotated to "
            "match (labels Class1..Class14, features Att1..Att103)");
  EXPECT_EQ(s.stats.rows, 2417u);
  EXPECT_NEAR(s.stats.cardinality, 4.237, 0.001);
  EXPECT_EQ(s.stats.rows_without_label, 0u);
  ASSERT_EQ(s.contexts.size(), 2417u * 10);
  ASSERT_EQ(s.labels.size(), 2417u * 14);
  // First row's labels, as written at the end of the first data line.
  EXPECT_EQ(std::vector<uint8_t>(s.labels.begin(), s.labels.begin() + 14),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0}));
  float lo = 1;
  for (size_t r = 0; r < s.rows; ++r) {
    double sum = 0;
    for (size_t j = 0; j < s.dim; ++j) {
      const float v = s.contexts[r * s.dim + j];
      ASSERT_GE(v, 0.0f);
      lo = std::min(lo, v);
      sum += v;
    }
    ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << r;
  }
  EXPECT_EQ(lo, 0.0f);  // min-max reaches 0 on every component
}

TEST_F(Yeast, TrustingTheHeaderOrderIsRefused) {
  const ArffTable table = load_arff(P2B_YEAST_ARFF);
  EXPECT_EQ(error_of(table, "first:14"),
            "row 1, column 1 ('Class1'): label value 0.004168 is not 0 or 1 (the header order may "
            "not match the data: try labels=auto)");
  EXPECT_NE(error_of(table, "prefix:Class"), "");
  const LabeledTable last = split_labels(table, LabelSpec::parse("last:14"));
  EXPECT_EQ(last.feature_names.front(), "Att1");
  EXPECT_EQ(last.feature_names.size(), 103u);
}

}  // namespace
}  // namespace p2b::data
