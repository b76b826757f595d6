#pragma once
/// \file
/// Everything of the passtiming core in one include.

#include "passtiming/clock.h"
#include "passtiming/config.h"
#include "passtiming/errors.h"
#include "passtiming/event_log.h"
#include "passtiming/ir_module.h"
#include "passtiming/logging.h"
#include "passtiming/names.h"
#include "passtiming/output_file.h"
#include "passtiming/pass.h"
#include "passtiming/pass_context.h"
#include "passtiming/pass_instrument.h"
#include "passtiming/pass_timing.h"
#include "passtiming/profile.h"
#include "passtiming/report.h"
#include "passtiming/session.h"
#include "passtiming/settings.h"
#include "passtiming/timing_state.h"
#include "passtiming/version.h"
