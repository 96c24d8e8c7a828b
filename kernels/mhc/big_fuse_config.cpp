//===- big_fuse_config.cpp - the mixes kernel's key -----------------------===//
#include "kernels/mhc/big_fuse.h"

namespace tk::kernels::mhc {

std::string BigFuseMixConfig::key() const {
  return "mhc_pre_big_fuse_mixes:n=" + std::to_string(streams) + ",repeat=" + std::to_string(repeat) +
         (rows ? ",rows=" + std::to_string(rows) : "") + (threads ? ",threads=" + std::to_string(threads) : "") +
         (rolled ? ",rolled" : "") + (pdl ? ",pdl=" + std::to_string(pdl) : "");
}

} // namespace tk::kernels::mhc
