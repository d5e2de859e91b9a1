import type { z } from 'zod';

/** One documented environment variable: its name, how it parses, and what it means. */
export interface EnvVar<TSchema extends z.ZodType = z.ZodType> {
  /** The variable's name, e.g. `GATEWAY_PORT`. */
  readonly name: string;
  /** Parses the raw string (coercion and defaults live here). An unset variable parses `undefined`. */
  readonly schema: TSchema;
  /** One or two sentences for `.env.example` and `docs/configuration.md`. */
  readonly description: string;
  /** What the default is, in words, when the schema's default is not the whole story. */
  readonly defaultText?: string;
  /** A value to show in `.env.example`; never a real secret. */
  readonly example?: string;
  /** Secrets are never echoed in error messages. */
  readonly secret?: boolean;
  /**
   * Earlier names of the variable, still read (in order) when `name` is unset; using one emits a
   * deprecation warning that names the new one.
   */
  readonly deprecatedNames?: readonly string[];
  /**
   * Variables that must not be set together with this one (two ways of saying the same thing,
   * such as two Redis modes): loading fails, naming both, when this one and one of them are set.
   */
  readonly conflictsWith?: readonly string[];
}

/**
 * Declares one environment variable.
 *
 * @example
 * const port = envVar({ name: 'GATEWAY_PORT', schema: portSchema.default(8080), description: 'Port the gateway listens on.' });
 */
export function envVar<TSchema extends z.ZodType>(spec: EnvVar<TSchema>): EnvVar<TSchema> {
  return spec;
}

/** A service's configuration: config field name → the variable that fills it. */
export type ConfigSpec = Readonly<Record<string, EnvVar>>;

/** The typed configuration a {@link ConfigSpec} loads into. */
export type ConfigOf<TSpec extends ConfigSpec> = {
  -readonly [K in keyof TSpec]: z.output<TSpec[K]['schema']>;
};
