//===- operator_schedule.h - how an operator's call gets its schedule -----===//
//
// Every operator whose kernel has a schedule declares it once as an
// OperatorSchedule (its name, its fields, the checks its kernel needs, its
// search space) and registers it. Before a call builds its kernel,
// resolveSchedule fills the config's schedule: fields the caller set stay;
// otherwise TK_SCHEDULE's entry for the operator (read once per context),
// else the tuning table's row for (operator, target, shape class), else the
// heuristic (the fields stay unset). The choice is recorded in the context.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/schedule.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/Context.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tk::kernels {

/// What tools and contexts know of every operator's schedule, whatever its config type.
class ScheduledOperator {
public:
  virtual ~ScheduledOperator() = default;
  virtual const std::string &name() const = 0;
  /// Which entry points run it ("tk_per_channel_cast, ...").
  virtual const std::string &entryPoints() const = 0;
  /// "" when `fields` would parse for some config, else the problem.
  virtual std::string checkFields(const std::string &fields) const = 0;
  /// Its fields, one line each.
  virtual std::string describe() const = 0;
};

/// Every operator's schedule (each registers it: kernels/registry.h).
const std::vector<const ScheduledOperator *> &scheduledOperators();
const ScheduledOperator *findScheduledOperator(const std::string &name);
/// For a name that is no schedule's: "; tk_<name>'s kernels are scheduled as '<schedule>'" when an operator of
/// that name runs another's schedule (aux_fi runs group_count's), else "".
std::string scheduledAsHint(const std::string &name);

/// The tuning table's schedule for (operator, target, shape class), or null.
const std::string *tunedSchedule(const std::string &op, const std::string &target, const std::string &problem);
/// A row of the table that does not parse ("" when every row does).
std::string tuningTableProblem();
/// One row of the tuning table.
struct TableRow {
  std::string op, target, problem, schedule;
  std::string note; ///< the comment lines right above it (what tk tune measured), kept when the table is rewritten
};
/// The table's rows, sorted by operator, target and shape class.
std::vector<TableRow> tuningTableRows();
/// Makes `text` (table.tsv's format, read from `source`) the process's
/// table: `tk bench --table` times a table `tk tune` wrote before it is
/// built in. Not safe while other threads run operators. "" or the error.
std::string replaceTuningTable(const std::string &text, const std::string &source);
/// TK_SCHEDULE parsed, every operator it names exists and its fields parse
/// (tk_context_create refuses a context otherwise).
runtime::Status checkScheduleOverrides(const runtime::ScheduleSettings &settings);

template <typename Config> class OperatorSchedule : public ScheduledOperator {
public:
  using Check = std::function<std::string(const Config &)>;
  using Space = std::function<std::vector<std::string>(const Config &, const compiler::Target &)>;
  using LeaveAside = std::function<void(Config &)>;
  using Secondary = std::function<bool(const Config &)>;

  /// `check`: the kernel's own conditions on a schedule (a tile of whole
  /// blocks, ...), "" when `c` meets them. `space`: the schedules `tk tune`
  /// times for `c` on a target (each as FIELDS text). `leaveAside`: unsets
  /// the fields that do not shape `c`'s kernel (a pipeline for a kernel that
  /// has none), so that TK_SCHEDULE, which applies to every call of the
  /// operator, sets only those that do. `secondary`: the configs of an
  /// operator's helper kernels (those a call launches beside its main one):
  /// they take the heuristic's schedule (never TK_SCHEDULE's or the table's,
  /// which are tuned for the main kernel) and stay out of the log when the
  /// main kernel is in it, so that `tk tune` times and keys the main kernel.
  OperatorSchedule(std::string name, std::string entryPoints, ScheduleSpec<Config> spec, Check check, Space space,
                   LeaveAside leaveAside = [](Config &) {}, Secondary secondary = [](const Config &) { return false; })
      : name_(std::move(name)), entryPoints_(std::move(entryPoints)), spec_(std::move(spec)), check_(std::move(check)),
        space_(std::move(space)), leaveAside_(std::move(leaveAside)), secondary_(std::move(secondary)) {}
  const std::string &name() const override { return name_; }
  const std::string &entryPoints() const override { return entryPoints_; }
  const ScheduleSpec<Config> &spec() const { return spec_; }
  std::string describe() const override { return spec_.describe(); }
  std::string checkFields(const std::string &fields) const override {
    Config c;
    return spec_.parse(fields, c);
  }
  std::vector<std::string> searchSpace(const Config &c, const compiler::Target &t) const { return space_(c, t); }
  /// `c`'s key with its schedule unset: the tuning table's shape class.
  std::string problem(const Config &c) const {
    Config plain = c;
    for (const auto &e : spec_.entries())
      plain.*(e.member) = e.field.unset;
    return plain.key();
  }

  /// Fills `c`'s schedule as the header says, from `settings` (TK_SCHEDULE)
  /// and the tuning table; `choice` says where it came from. An error
  /// (INVALID_ARGUMENT, naming TK_SCHEDULE) for an override that does not
  /// parse or fit.
  runtime::Status choose(const runtime::ScheduleSettings &settings, const compiler::Target &target, Config &c,
                         runtime::ScheduleChoice &choice) const {
    choice = {"explicit", problem(c), spec_.print(c), target.name};
    if (!choice.schedule.empty()) {
      std::string error = check_(c);
      return error.empty() ? runtime::Status::ok()
                           : runtime::Status::invalid(name_ + " schedule " + choice.schedule + ": " + error);
    }
    choice.source = "heuristic";
    if (runtime::Status s = checkScheduleOverrides(settings); !s.isOk())
      return s;
    if (secondary_(c))
      return runtime::Status::ok();
    const std::string *row = settings.useTable ? tunedSchedule(name_, target.name, choice.problem) : nullptr;
    const std::string &o = settings.overrideFor(name_);
    std::string fields;
    if (o.empty() && row)
      fields = *row, choice.source = "table";
    else if (runtime::ScheduleSettings::extendsSchedule(o)) { // the table's row (if any), then the override's fields
      fields = (row ? *row + "," : "") + runtime::ScheduleSettings::fieldsOf(o);
      choice.source = row ? "table + TK_SCHEDULE" : "TK_SCHEDULE";
    } else if (!o.empty())
      fields = o, choice.source = "TK_SCHEDULE";
    else
      return runtime::Status::ok();
    Config tuned = c;
    std::string error = spec_.parse(fields, tuned);
    if (choice.source != "table")
      leaveAside_(tuned);
    if (error.empty())
      error = check_(tuned);
    if (!error.empty())
      return choice.source == "table"
                 ? runtime::Status{TK_ERROR_INTERNAL, "tuning table, " + name_ + " " + fields + ": " + error}
                 : runtime::Status::invalid("TK_SCHEDULE: " + name_ + ": " + error);
    c = tuned;
    choice.schedule = spec_.print(c);
    if (choice.schedule.empty())
      choice.source = "heuristic";
    return runtime::Status::ok();
  }

  /// choose() with the context's settings, recorded in the context.
  runtime::Status resolve(tk_context ctx, const compiler::Target &target, Config &c) const {
    runtime::ScheduleChoice choice;
    runtime::Status s = choose(ctx->schedules, target, c, choice);
    if (s.isOk() && ctx->scheduleLog.recordSpaces)
      choice.space = space_(c, target);
    if (s.isOk() && (!secondary_(c) || ctx->scheduleLog.last(name_).target.empty()))
      ctx->scheduleLog.record(name_, choice);
    return s;
  }

private:
  std::string name_, entryPoints_;
  ScheduleSpec<Config> spec_;
  Check check_;
  Space space_;
  LeaveAside leaveAside_;
  Secondary secondary_;
};

/// Runs the kernel `build` makes of `config`, its schedule resolved for the
/// target the tensors' place gives (OperatorSchedule::resolve). `fit`, when
/// given, then adjusts what the call's device or sizes cannot run (a
/// default past the device's shared memory, say), after the resolution so
/// that TK_SCHEDULE and the table still apply.
template <typename Config, typename Build, typename Fit>
runtime::Status runScheduled(tk_context ctx, const OperatorSchedule<Config> &op, Build build, Config config,
                             const std::vector<const tk_tensor *> &tensors, tk_stream stream,
                             const std::vector<int64_t> &scalars, Fit fit) {
  compiler::Target target;
  runtime::Status s = ctx->targetFor(tensors, target);
  if (s.isOk())
    s = op.resolve(ctx, target, config);
  if (s.isOk()) {
    const Config before = config;
    fit(config, target);
    for (const auto &e : op.spec().entries()) // field by field: a call's host path builds no strings unless fitted
      if (before.*(e.member) != config.*(e.member)) {
        ctx->scheduleLog.recordFit(op.name(), op.spec().print(config));
        break;
      }
  }
  return s.isOk() ? ctx->run(runtime::factoryOf(build, config), tensors, stream, scalars) : s;
}
template <typename Config, typename Build>
runtime::Status runScheduled(tk_context ctx, const OperatorSchedule<Config> &op, Build build, Config config,
                             const std::vector<const tk_tensor *> &tensors, tk_stream stream,
                             const std::vector<int64_t> &scalars = {}) {
  return runScheduled(ctx, op, build, config, tensors, stream, scalars, [](Config &, const compiler::Target &) {});
}

/// The factory of `build` and `config` with its schedule chosen, when built,
/// for the target and the environment's TK_SCHEDULE (what `tk compile`
/// shows: the kernel a context would run there).
template <typename Config, typename Build>
runtime::KernelFactory scheduledFactory(const OperatorSchedule<Config> &op, Build build, const Config &config) {
  runtime::KernelFactory f = runtime::factoryOf(build, config);
#ifndef TK_RUNTIME_ONLY // which has no programs to build
  f.build = [&op, build, config](mlir::MLIRContext &ctx, const compiler::Target &target) {
    Config c = config;
    runtime::ScheduleChoice choice;
    if (runtime::Status s = op.choose(runtime::ScheduleSettings::fromEnvironment(), target, c, choice); !s.isOk())
      throw std::invalid_argument(s.message());
    return runtime::factoryOf(build, c).build(ctx, target);
  };
#else
  (void)op;
#endif
  return f;
}

} // namespace tk::kernels
