//===- schedule.h - an operator's schedule, declared once -----------------===//
//
// A schedule is the part of an operator's config that changes how fast its
// kernel runs, never what it computes: tiles, threads, pipeline stages, access
// widths. Its fields are declared once (ScheduleSpec: name, meaning, allowed
// values, the config member that holds it); parsing, printing, validation and
// the schedule's part of the config's key derive from that declaration. A
// field at its `unset` value leaves the choice to the operator's heuristic
// (its config's methods, per problem and target).
//
// Where a schedule comes from, first match wins: TK_SCHEDULE (an experiment,
// read once per context), the tuning table (kernels/tuning/table.tsv, written
// by `tk tune`), the heuristic.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace tk::kernels {

/// Shared memory a kernel's pipeline buffers may take: the rest of the 48 KB
/// of static shared memory is left to its transpose and reduction buffers.
constexpr int64_t kPipelineSharedBytes = 40 * 1024;

/// `stages` pipeline stages of `stageBytes` each, fewer where they would not
/// fit in kPipelineSharedBytes (at least one: a stage that does not fit
/// alone stays an error). TK_SCHEDULE's stages are a ceiling, since one
/// experiment applies to every shape an operator is called with.
inline int64_t stagesThatFit(int64_t stages, int64_t stageBytes) {
  if (stages <= 0 || stageBytes <= 0)
    return stages;
  return std::max<int64_t>(1, std::min<int64_t>(stages, kPipelineSharedBytes / stageBytes));
}

/// A search space (`tk tune`) of every combination of the fields' values, as
/// schedule strings ("rows=1,threads=32", ...), the first field outermost.
std::vector<std::string> everyCombination(const std::vector<std::pair<std::string, std::vector<int64_t>>> &fields);

/// One field: what `text` overrides and keys call it, and the values it takes.
struct ScheduleField {
  const char *name;    ///< "rows"
  const char *meaning; ///< "rows of the CTA's tile (a multiple of b)"
  int64_t lo, hi;      ///< the range of a set value
  bool powerOfTwo;     ///< set values must be powers of two
  int64_t unset;       ///< the value that leaves the choice to the heuristic
};

/// The `pdl` field of an operator of several kernels (0 to 2; unset, -1:
/// kDefaultDependentLaunch): whether every kernel of a call is launched
/// while the one before it runs, and when it lets the next one launch
/// (KernelBuilder::dependentLaunch). The call gives its helper kernels the
/// main kernel's choice.
inline ScheduleField dependentLaunchField() {
  return {"pdl",
          "programmatic dependent launch on sm_90+: each of the call's kernels launches while the one before it "
          "runs, then waits for it, and lets the next launch once each of its blocks has started (1) or ended (2); "
          "0: plain launches (unset: 2)",
          0,
          2,
          false,
          -1};
}

/// Unset `pdl`: 2 for every operator that declares the field. On an H100 it
/// took each of them to 0.80-0.97x of plain launches, and 1 was no faster
/// anywhere while it cost get_fused_mapping up to 1.8x (docs/design.md).
inline constexpr int64_t kDefaultDependentLaunch = 2;

/// KernelBuilder::dependentLaunch as a `pdl` field asks.
template <typename Builder> void applyDependentLaunch(Builder &k, int64_t pdl) {
  if (int64_t p = pdl >= 0 ? pdl : kDefaultDependentLaunch)
    k.dependentLaunch(p == 1);
}

/// The declared fields of `Config`'s schedule: each a member of the config.
template <typename Config> class ScheduleSpec {
public:
  struct Entry {
    int64_t Config::*member;
    ScheduleField field;
  };
  explicit ScheduleSpec(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  const std::vector<Entry> &entries() const { return entries_; }

  /// "rows=128,threads=64": the fields set (not at their unset value), in
  /// declaration order; "" when the heuristic chooses everything.
  std::string print(const Config &c) const {
    std::string out;
    for (const Entry &e : entries_)
      if (c.*(e.member) != e.field.unset)
        out += (out.empty() ? "" : ",") + std::string(e.field.name) + "=" + std::to_string(c.*(e.member));
    return out;
  }

  /// Sets the fields `text` names ("rows=128,threads=64"); "" or an error
  /// naming the field and what it takes. `c` is unchanged on error.
  std::string parse(const std::string &text, Config &c) const {
    Config out = c;
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find(',', at);
      if (end == std::string::npos)
        end = text.size();
      std::string item = text.substr(at, end - at);
      at = end + 1;
      size_t eq = item.find('=');
      const Entry *entry = eq == std::string::npos ? nullptr : find(item.substr(0, eq));
      if (!entry)
        return "'" + item + "' is not FIELD=VALUE with FIELD one of " + names();
      int64_t value = 0;
      if (std::string error = parseValue(item.substr(eq + 1), entry->field, value); !error.empty())
        return error;
      out.*(entry->member) = value;
    }
    c = out;
    return "";
  }

  /// "" when every set field is allowed, else the first that is not.
  std::string validate(const Config &c) const {
    for (const Entry &e : entries_)
      if (c.*(e.member) != e.field.unset)
        if (std::string error = check(c.*(e.member), e.field); !error.empty())
          return error;
    return "";
  }

  /// "rows, cols, threads": the fields, for messages.
  std::string names() const {
    std::string out;
    for (const Entry &e : entries_)
      out += (out.empty() ? "" : ", ") + std::string(e.field.name);
    return out;
  }

  /// One line per field: name, values, meaning (`tk tune --list`, docs).
  std::string describe() const {
    std::string out;
    for (const Entry &e : entries_)
      out += "  " + std::string(e.field.name) + " (" + allowed(e.field) + "): " + e.field.meaning + "\n";
    return out;
  }

private:
  const Entry *find(const std::string &name) const {
    for (const Entry &e : entries_)
      if (name == e.field.name)
        return &e;
    return nullptr;
  }
  static std::string allowed(const ScheduleField &f) {
    return (f.powerOfTwo ? "a power of two from " : "") + std::to_string(f.lo) + (f.powerOfTwo ? " to " : "..") +
           std::to_string(f.hi);
  }
  static std::string check(int64_t v, const ScheduleField &f) {
    const bool ok = v >= f.lo && v <= f.hi && (!f.powerOfTwo || (v > 0 && (v & (v - 1)) == 0));
    return ok ? "" : std::string(f.name) + " must be " + allowed(f) + ", got " + std::to_string(v);
  }
  static std::string parseValue(const std::string &text, const ScheduleField &f, int64_t &value) {
    char *end = nullptr;
    long long v = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end)
      return std::string(f.name) + " takes an integer, got '" + text + "'";
    value = v;
    return check(value, f);
  }

  std::vector<Entry> entries_;
};

} // namespace tk::kernels
