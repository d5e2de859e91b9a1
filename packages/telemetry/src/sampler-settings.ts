/**
 * The samplers `OTEL_TRACES_SAMPLER` names (OpenTelemetry SDK configuration spec). The
 * `parentbased_*` ones follow a sampled parent's decision and apply theirs to root spans only, so
 * a trace is kept or dropped whole across services.
 */
export const TRACES_SAMPLER_NAMES = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** One of {@link TRACES_SAMPLER_NAMES}. */
export type TracesSamplerName = (typeof TRACES_SAMPLER_NAMES)[number];

/** A sampler choice: `OTEL_TRACES_SAMPLER` and, for the ratio samplers, `OTEL_TRACES_SAMPLER_ARG`. */
export interface SamplerSettings {
  name: TracesSamplerName;
  /** The share of traces kept by the `traceidratio` samplers, 0 to 1. @default 1 */
  ratio?: number | undefined;
}

/**
 * Validates a sampler choice as `OTEL_TRACES_SAMPLER`/`OTEL_TRACES_SAMPLER_ARG` spell it (names
 * case-insensitive, blanks unset). Returns undefined when no sampler is named (the SDK default,
 * `parentbased_always_on`). Throws a TypeError naming the variable for an unknown name or a ratio
 * outside 0–1, so a typo fails at boot instead of silently tracing everything.
 *
 * @example
 * parseSamplerSettings({ sampler: 'parentbased_traceidratio', arg: '0.1' });
 * // { name: 'parentbased_traceidratio', ratio: 0.1 }
 */
export function parseSamplerSettings({
  sampler,
  arg,
}: {
  sampler?: string | undefined;
  arg?: string | number | undefined;
}): SamplerSettings | undefined {
  const name = sampler?.trim().toLowerCase();
  if (name === undefined || name === '') return undefined;
  if (!(TRACES_SAMPLER_NAMES as readonly string[]).includes(name)) {
    throw new TypeError(
      `OTEL_TRACES_SAMPLER: expected one of ${TRACES_SAMPLER_NAMES.join(', ')}, got ${JSON.stringify(sampler)}`,
    );
  }
  const text = typeof arg === 'number' ? String(arg) : arg?.trim();
  if (text === undefined || text === '' || !name.endsWith('traceidratio')) {
    return { name: name as TracesSamplerName };
  }
  const ratio = Number(text);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new TypeError(
      `OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got ${JSON.stringify(text)}`,
    );
  }
  return { name: name as TracesSamplerName, ratio };
}
