/** API keys and tenants. */
export { createApiKeyRing } from './api-key-ring';
export type { ApiKeyEntry, ApiKeyRing } from './api-key-ring';
export { authenticate, authenticateRequest, getTenant } from './authenticate';
export { SINGLE_HEADERS } from './single-headers';
