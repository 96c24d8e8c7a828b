// `tk bench` rows: a case that did not run prints no rate and writes null in
// the JSON (a refused schedule once printed "0.0 -nan -nan%" and would have
// written -nan, which no JSON reader accepts).
#include "bench/bench_row.h"

#include <gtest/gtest.h>

#include <cmath>

using tk::bench::Row;

namespace {

Row row(double ms) {
  Row r;
  r.op = "batched_transpose", r.shape = "8x4096x7168", r.variant = "f32", r.bytes = 1.879048192e9;
  r.setTime(ms, 4000);
  return r;
}

} // namespace

TEST(BenchRow, TimedRowHasItsRate) {
  Row r = row(0.4648);
  r.check = "bit-exact";
  ASSERT_TRUE(r.timed());
  EXPECT_NEAR(r.us, 464.8, 1e-9);
  EXPECT_NEAR(r.gbps, 4042.7, 0.1);
  EXPECT_NEAR(r.frac, 4042.7 / 4000, 1e-4);
  EXPECT_NE(r.tableLine().find("464.8     4043  101.1%  bit-exact"), std::string::npos) << r.tableLine();
  EXPECT_NE(r.json().find("\"us\": 464.8,"), std::string::npos) << r.json();
  EXPECT_FALSE(r.failed());
  r.check = "";
  EXPECT_FALSE(r.failed()) << "a row timed without a check";
  r.check = "out 3 of 100 differ";
  EXPECT_TRUE(r.failed());
}

TEST(BenchRow, FailedRowHasNoRate) {
  for (double ms : {0.0, -1.0, std::nan("")}) {
    Row r = row(ms);
    r.check = "invalid argument: TK_SCHEDULE: transpose: a 128 x 128 tile takes 65536 bytes of i32, over 32768";
    EXPECT_FALSE(r.timed());
    EXPECT_TRUE(r.failed());
    std::string line = r.tableLine(), json = r.json();
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
    EXPECT_EQ(line.find("inf"), std::string::npos) << line;
    EXPECT_NE(line.find("  -        -       -  invalid argument"), std::string::npos) << line;
    EXPECT_NE(json.find("\"us\": null, \"bytes\": 1.87905e+09, \"gbps\": null, \"frac\": null"), std::string::npos)
        << json;
  }
}

TEST(BenchRow, JsonTextIsEscaped) {
  EXPECT_EQ(tk::bench::jsonEscape("a \"b\" c\\d\ne\tf"), "a \\\"b\\\" c\\\\d\\u000ae\\u0009f");
  EXPECT_EQ(tk::bench::jsonNumber(1.5), "1.5");
  EXPECT_EQ(tk::bench::jsonNumber(INFINITY), "null");
  EXPECT_EQ(tk::bench::jsonNumber(-NAN), "null");
}
