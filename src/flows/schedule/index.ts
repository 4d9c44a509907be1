/** Scheduling stored flows (re-exports). */
export { loadFlowStore, scheduleOf, type FlowSchedule, type StoredFlow, type LoadedStore, type StoreProblem } from './store.ts'
export { FlowScheduler, systemClock, type SchedulerClock, type ScheduleLogEntry, type FlowSchedulerOptions } from './scheduler.ts'
