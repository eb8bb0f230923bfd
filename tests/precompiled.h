// The test programs' precompiled headers: the libraries' set plus
// GoogleTest (see base/precompiled.h).
#ifndef RECON_TESTS_PRECOMPILED_H_
#define RECON_TESTS_PRECOMPILED_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/precompiled.h"

#endif  // RECON_TESTS_PRECOMPILED_H_
