export { TimeWindows, SlidingWindows, SessionWindows, EmitStrategy, closesAt, type EmitStrategyType } from "./windows.ts";
export { WindowedSerdes } from "./windowed-serdes.ts";
export { FinalResultBuffer, type BufferedResult } from "./final-result-buffer.ts";
export { WindowedMetrics, WindowedMetricsRegistry, LATE_RECORD_HEADERS, type WindowedOperatorMetrics, type WindowedOutput } from "./late-records.ts";
export type { WindowedAggregation, WindowedAggregateOptions } from "./aggregation.ts";
export { TimeWindowAggregateProcessor } from "./time-window-aggregate.ts";
export { SessionWindowAggregateProcessor } from "./session-window-aggregate.ts";
export { SlidingWindowAggregateProcessor } from "./sliding-window-aggregate.ts";
export { SuppressProcessor, type SuppressOptions } from "./suppress.ts";
