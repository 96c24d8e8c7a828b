//===- bench_row.cpp - one row of `tk bench`: its table line and JSON ------===//
#include "bench/bench_row.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tk::bench {

bool Row::timed() const { return us > 0 && std::isfinite(us) && std::isfinite(gbps); }

bool Row::failed() const { return !check.empty() && check != "bit-exact"; }

void Row::setTime(double ms, double ceilingGbps) {
  if (!(ms > 0) || !std::isfinite(ms)) {
    us = gbps = frac = 0;
    return;
  }
  us = ms * 1e3;
  gbps = bytes / (ms * 1e-3) / 1e9;
  frac = ceilingGbps > 0 ? gbps / ceilingGbps : 0;
}

std::string Row::tableLine() const {
  char buf[1280];
  if (timed())
    std::snprintf(buf, sizeof buf, "%-16s %-12s %-26s %10.1f %8.0f %6.1f%%  %s", op.c_str(), shape.c_str(),
                  variant.c_str(), us, gbps, 100 * frac, check.c_str());
  else
    std::snprintf(buf, sizeof buf, "%-16s %-12s %-26s %10s %8s %7s  %s", op.c_str(), shape.c_str(), variant.c_str(),
                  "-", "-", "-", check.c_str());
  std::string line = buf;
  if (!schedule.empty() && schedule != "heuristic")
    line += "  [" + schedule + "]";
  return line;
}

std::string tableHeader() {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-16s %-12s %-26s %10s %8s %7s  %s", "op", "shape", "variant", "us", "GB/s", "ceil",
                "check");
  return buf;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += (char)c;
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += (char)c;
    }
  }
  return out;
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string Row::json() const {
  const bool t = timed();
  return "{\"op\": \"" + jsonEscape(op) + "\", \"shape\": \"" + jsonEscape(shape) + "\", \"variant\": \"" +
         jsonEscape(variant) + "\", \"us\": " + jsonNumber(t ? us : NAN) + ", \"bytes\": " + jsonNumber(bytes) +
         ", \"gbps\": " + jsonNumber(t ? gbps : NAN) + ", \"frac\": " + jsonNumber(t ? frac : NAN) +
         ", \"check\": \"" + jsonEscape(check) + "\", \"schedule\": \"" + jsonEscape(schedule) + "\"}";
}

} // namespace tk::bench
