/** Agent steering: `X-Fleet-Agents` and the body field `fleet_agents`. */
export {
  assertKnownSteering,
  FLEET_AGENTS_FIELD,
  FLEET_AGENTS_HEADER,
  joinSteering,
  parseFleetAgentsField,
  parseFleetAgentsHeader,
} from './parse-fleet-agents';
