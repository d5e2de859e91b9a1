/** Per-tenant limits shared by every gateway replica: requests, tokens per day, concurrent and waiting runs. */
export { createTenantLimiter } from './tenant-limiter';
export type {
  Admission,
  LimitedRoute,
  LimitName,
  TenantLimiter,
  TenantLimiterOptions,
} from './tenant-limiter';
export { createRunSlots } from './run-slots';
export type { RunSlot, RunSlots, RunSlotsOptions } from './run-slots';
export { limitApiRequests } from './limit-api-requests';
export { formatResetDuration, setRateLimitHeaders, setRetryAfterMs } from './rate-limit-headers';
export type { LimitState } from './rate-limit-headers';
export { combineObservers, createUsageTap, lastUsageTokens } from './usage-tap';
export {
  inlineTenantLimitsSchema,
  limitValueSchema,
  tenantLimitOverridesSchema,
  tenantLimitsFileSchema,
  tenantLimitsSchema,
} from './tenant-limits-spec';
export type { TenantLimitOverrides, TenantLimits, TenantLimitTable } from './tenant-limits-spec';
export { admitHotRequest, NO_REQUEST_LIMITS } from './request-limits';
export type { RequestLimits } from './request-limits';
