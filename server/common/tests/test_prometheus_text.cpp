// The shared /metrics renderer: exact text exposition format 0.0.4.
#include <gtest/gtest.h>

#include "common/prometheus_text.hpp"

namespace {

TEST(CommonPrometheusText, CountersGaugesAndLabels) {
  p2b::common::PrometheusText out;
  out.counter("p2b_x_total", "Things counted.", 3);
  out.labelled_counter("p2b_y_total", "By reason.", "reason", {{"a", 1}, {"b", 0}});
  out.gauge("p2b_depth", "Depth now.", 18446744073709551615ULL);
  EXPECT_EQ(out.text(),
            "# HELP p2b_x_total Things counted.\n"
            "# TYPE p2b_x_total counter\n"
            "p2b_x_total 3\n"
            "# HELP p2b_y_total By reason.\n"
            "# TYPE p2b_y_total counter\n"
            "p2b_y_total{reason=\"a\"} 1\n"
            "p2b_y_total{reason=\"b\"} 0\n"
            "# HELP p2b_depth Depth now.\n"
            "# TYPE p2b_depth gauge\n"
            "p2b_depth 18446744073709551615\n");
}

TEST(CommonPrometheusText, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(p2b::common::escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  p2b::common::PrometheusText out;
  out.labelled_counter("m", "two\nlines \\ here", "l", {{"x\"y", 2}});
  EXPECT_EQ(out.text(),
            "# HELP m two\\nlines \\\\ here\n"
            "# TYPE m counter\n"
            "m{l=\"x\\\"y\"} 2\n");
}

}  // namespace
