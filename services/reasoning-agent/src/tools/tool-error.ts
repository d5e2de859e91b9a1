import { BadRequestError, type FleetErrorOptions } from '@fleet/errors';

/**
 * A tool call the agent cannot carry out as asked: arguments that are not valid JSON or do not
 * fit the tool, an unknown tool, an unknown time zone. The loop hands the message back to the
 * model as the tool's result, so it can correct the call.
 */
export class ToolError extends BadRequestError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * An arithmetic expression `calculate` cannot evaluate: a syntax error, an unknown name, a
 * division by zero, a result that is not a finite number. The message says what and where.
 */
export class CalculationError extends ToolError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, options);
  }
}
