// The front end's spin lock is the base one (src/base/spin_lock.h).
#ifndef SEAM_LAZY_SPIN_LOCK_H_
#define SEAM_LAZY_SPIN_LOCK_H_

#include "src/base/spin_lock.h"

namespace seam::lazy {

using SpinLock = base::SpinLock;

}  // namespace seam::lazy

#endif  // SEAM_LAZY_SPIN_LOCK_H_
