// Early return of a failed Status, for host code with and without CUDA.
#pragma once

#include "histoscope/HistogramTypes.h"

#define HS_TRY(expr)                                       \
    do {                                                   \
        if (::hs::Status hs_status_ = (expr); !hs_status_) \
            return hs_status_;                             \
    } while (0)
