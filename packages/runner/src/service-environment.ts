import type { ServiceDefinition } from './services';

/** Options for {@link serviceEnvironment}. */
export interface ServiceEnvironmentOptions {
  /** The caller's environment; it passes through (docs/architecture.md §11). */
  base: Readonly<Record<string, string>>;
  /** Every service of the table, for the `<NAME>_URL` variables. */
  services: readonly ServiceDefinition[];
  /** The services of this run (`--only`), for `AGENT_URLS`. */
  running: readonly ServiceDefinition[];
  /** Resolved listen port per service name. */
  ports: Readonly<Record<string, number>>;
  /** Variables the runner decided: REDIS_URL, GATEWAY_API_KEYS, FLEET_INTERNAL_TOKEN, … */
  fleet: Readonly<Record<string, string | undefined>>;
}

/** The local URL of a service. */
export function serviceUrl(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/**
 * The environment every service of a run gets: the caller's environment, plus what the runner
 * decided, plus where to find the other services. The caller's own values always win, except
 * each service's port variable, which is the port the runner checked.
 */
export function serviceEnvironment({
  base,
  services,
  running,
  ports,
  fleet,
}: ServiceEnvironmentOptions): Record<string, string> {
  const environment: Record<string, string> = { ...base };
  const setDefault = (name: string, value: string | undefined): void => {
    if (value !== undefined && (environment[name] ?? '').trim() === '') environment[name] = value;
  };
  for (const [name, value] of Object.entries(fleet)) setDefault(name, value);
  for (const service of services) {
    const port = ports[service.name] ?? service.defaultPort;
    environment[service.portVariable] = String(port);
    setDefault(service.urlVariable, serviceUrl(port));
    if (service.publicUrlVariable !== undefined) {
      setDefault(service.publicUrlVariable, serviceUrl(port));
    }
  }
  const agents = running.filter((service) => service.discoverable);
  if (agents.length > 0) {
    setDefault(
      'AGENT_URLS',
      agents.map((agent) => serviceUrl(ports[agent.name] ?? agent.defaultPort)).join(','),
    );
  }
  return environment;
}
