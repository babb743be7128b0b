#pragma once
// The renderings of `gpubench history show` (table, csv, json, html) and `history drift` (table,
// json), over what history_store.h reads and history_drift.h finds.
#include <string>

#include "harness/analysis/history_drift.h"
#include "harness/analysis/history_store.h"

namespace gpubench {

// table: one line per series (nights, first and latest figure, their change); csv: one row per
// night and figure (tidy); json: every series with its nights and their runs.
std::string render_history(const HistoryData& data, const std::string& format);
// One self-contained page: a chart per figure (benchmark and metric), a line per node and GPU,
// the report's chart code (svg_chart.h); the nights of the changes in `drift` ringed.
std::string render_history_html(const HistoryData& data, const DriftReport& drift);

// table: the changes, then the summary line (drift_summary); json: the changes as data.
std::string render_drift(const HistoryData& data, const DriftReport& drift, const std::string& format,
                         std::size_t min_nights);
// "drift: 120 series (96 with 8 nights or more), 1 step, 1 drift (1 to the latest night), 1 for the worse -> FAIL"
std::string drift_summary(const DriftReport& drift, std::size_t min_nights);

}  // namespace gpubench
