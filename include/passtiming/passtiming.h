#pragma once
/// \file
/// Everything of the passtiming core in one include.

#include "passtiming/engine/clock.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/logging.h"
#include "passtiming/engine/names.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/engine/version.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/output_file.h"
#include "passtiming/formats/report.h"
#include "passtiming/host/ir_module.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_instrument.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/compile_session.h"
#include "passtiming/recorder/config.h"
#include "passtiming/recorder/settings.h"
