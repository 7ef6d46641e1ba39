/**
 * The service's own state: `GET /api/health`, for a load balancer or a probe.
 */
import { EXAMPLE_HEALTH, EXAMPLE_UNHEALTHY } from '../examples.ts';
import type { ApiRoute } from './route.ts';

export const getHealth: ApiRoute = {
  method: 'GET',
  path: '/api/health',
  operationId: 'getHealth',
  summary: 'Health check',
  description: 'Reports whether the service and its store answer.',
  tag: 'system',
  changesState: false,
  auth: 'public',
  responses: {
    '200': { description: 'The service and its store answer.', body: 'Health', example: EXAMPLE_HEALTH },
    '503': { description: 'The store does not answer (`ok` false, `status` "unavailable").', body: 'Health', example: EXAMPLE_UNHEALTHY },
  },
  run: async (accounts) => {
    const health = await accounts.health();
    return { status: health.ok ? 200 : 503, body: health };
  },
};
