//===- main.cpp - the tk command line -------------------------------------===//
//
//   tk list                                   shipped kernels
//   tk compile --all [--target T] -o DIR      one .ptx per kernel variant
//   tk bundle DIR [--all [--target T]...]     ptxas cubins beside a cache directory's PTX, to deploy
//   tk run [--quick]                          GPU: run, check, time; else the CPU path and the compile table
//   tk check [--sms N] [--only OP] [--grid] [--compile-targets T,...|all [--ptxas]]
//                                             every entry point at small shapes (--grid: the GPU test grids), checked
//   tk bench [--full|--headline] [--only OP] [--match TEXT] [--json FILE] [--no-table|--table FILE] [--list]
//                                             GPU benchmark of every shipped operator
//   tk bench --first-call [--only OP]         a new process's first call: cold, warm disk cache
//   tk tune [--only OP] [--match TEXT] [-o FILE] [--seconds S] [--candidates OP:FIELDS] | --list
//                                             search the operators' declared schedules
//   tk version
//===----------------------------------------------------------------------===//
#include "tools/tk/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

static int usage(FILE *to = stderr) {
  std::fprintf(to, "usage:\n"
                   "  tk list\n"
                   "  tk compile (--all | NAME...) [--target sm_80|sm_90a|sm_100a] [--no-table] -o DIR\n"
                   "  tk bundle DIR [--all [--target T]...]   cubins (ptxas) for a cache directory to deploy\n"
                   "  tk run [--quick]\n"
                   "  tk check [--sms N] [--only OP] [--grid] [--compile-targets T,...|all [--ptxas]]\n"
                   "           [--out-of-bounds-control]\n"
                   "  tk bench [--full|--headline] [--only OP[,OP]] [--match TEXT] [--json FILE] [--baselines FILE]\n"
                   "           [--no-table | --table FILE]\n"
                   "  tk bench --list [--full|--headline] [--only OP[,OP]] [--match TEXT]   the rows, no GPU needed\n"
                   "  tk bench --first-call [--only OP[,OP]] [--bundle DIR]   first-call latency in new processes\n"
                   "  tk tune [--full|--headline] [--only OP[,OP]] [--match TEXT] [-o FILE] [--seconds S]\n"
                   "          [--min-gain F] [--table FILE] [--candidates OP:FIELDS[;OP:FIELDS...]]\n"
                   "  tk tune --list      every operator's schedule fields (TK_SCHEDULE=OP:FIELD=V,...;OP2:...)\n"
                   "  tk version\n");
  return to == stderr ? 2 : 0;
}

static bool asksForHelp(const std::string &arg) { return arg == "-h" || arg == "--help" || arg == "help"; }

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (asksForHelp(cmd) || std::any_of(args.begin(), args.end(), asksForHelp))
    return usage(stdout);
  if (cmd == "list")
    return tk::tools::cmdList(args);
  if (cmd == "compile")
    return tk::tools::cmdCompile(args);
  if (cmd == "bundle")
    return tk::tools::cmdBundle(args);
  if (cmd == "run")
    return tk::tools::cmdRun(args);
  if (cmd == "check")
    return tk::tools::cmdCheck(args);
  if (cmd == "bench")
    return tk::tools::cmdBench(args);
  if (cmd == "tune")
    return tk::tools::cmdTune(args);
  if (cmd == "version")
    return tk::tools::cmdVersion();
  return usage();
}
