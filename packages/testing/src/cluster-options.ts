/**
 * Test and bench clusters send an immediate task at once: no undo window
 * (`tasks.undoGraceMs` 0, docs/configuration.md), so a test of delivery waits
 * for the delivery, not for ten seconds of grace first. The undo window's own
 * tests (packages/embedded/test/undo-window.test.ts) keep the default.
 */
export const TEST_TASK_OPTIONS = { undoGraceMs: 0 } as const;

/**
 * Test clusters may run a campaign every second (`* * * * * *`) to see it
 * fire within a test: campaigns.minPeriodMs at its least, one second.
 */
export const TEST_CAMPAIGN_OPTIONS = { minPeriodMs: 1000 } as const;
