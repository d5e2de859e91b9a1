import { CalculationError } from './tool-error';

/** Longest expression `calculate` accepts, in characters. */
export const MAX_EXPRESSION_LENGTH = 500;
/** Deepest nesting of parentheses, function calls and unary signs. */
const MAX_DEPTH = 64;

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'operator'; value: string; at: number }
  | { kind: 'end'; at: number };

// Maps, not object literals: a name like `constructor` must never reach Object.prototype.
const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

type MathFunction = { arity: [number, number]; apply: (...values: number[]) => number };

function factorial(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 170) {
    throw new CalculationError(`factorial needs a whole number from 0 to 170, not ${value}.`);
  }
  let result = 1;
  for (let factor = 2; factor <= value; factor += 1) result *= factor;
  return result;
}

function roundTo(value: number, digits = 0): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new CalculationError(
      `round's digits must be a whole number from 0 to 15, not ${digits}.`,
    );
  }
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

const FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map(
  Object.entries({
    sqrt: { arity: [1, 1], apply: Math.sqrt },
    cbrt: { arity: [1, 1], apply: Math.cbrt },
    abs: { arity: [1, 1], apply: Math.abs },
    floor: { arity: [1, 1], apply: Math.floor },
    ceil: { arity: [1, 1], apply: Math.ceil },
    round: { arity: [1, 2], apply: roundTo },
    trunc: { arity: [1, 1], apply: Math.trunc },
    sign: { arity: [1, 1], apply: Math.sign },
    exp: { arity: [1, 1], apply: Math.exp },
    ln: { arity: [1, 1], apply: Math.log },
    log: {
      arity: [1, 2],
      apply: (value, base) =>
        base === undefined ? Math.log10(value) : Math.log(value) / Math.log(base),
    },
    log10: { arity: [1, 1], apply: Math.log10 },
    log2: { arity: [1, 1], apply: Math.log2 },
    sin: { arity: [1, 1], apply: Math.sin },
    cos: { arity: [1, 1], apply: Math.cos },
    tan: { arity: [1, 1], apply: Math.tan },
    asin: { arity: [1, 1], apply: Math.asin },
    acos: { arity: [1, 1], apply: Math.acos },
    atan: { arity: [1, 1], apply: Math.atan },
    pow: { arity: [2, 2], apply: (base = 0, exponent = 0) => base ** exponent },
    min: { arity: [1, 100], apply: Math.min },
    max: { arity: [1, 100], apply: Math.max },
    factorial: { arity: [1, 1], apply: (value = 0) => factorial(value) },
  } satisfies Record<string, MathFunction>),
);

/** The names `calculate` knows: constants and functions, for the tool's description. */
export const CALCULATOR_NAMES = {
  constants: [...CONSTANTS.keys()],
  functions: [...FUNCTIONS.keys()],
} as const;

// Digits may be grouped with underscores (1_000); commas separate function arguments.
const NUMBER = /^(?:\d+(?:_\d+)*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const OPERATORS = ['**', '+', '-', '*', '/', '%', '^', '(', ')', ',', '!', '×', '÷', '−'] as const;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < expression.length) {
    const rest = expression.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0].replaceAll('_', '')), at });
      at += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), at });
      at += name[0].length;
      continue;
    }
    const operator = OPERATORS.find((candidate) => rest.startsWith(candidate));
    if (operator === undefined) {
      throw new CalculationError(
        `Unexpected character "${rest.charAt(0)}" at position ${at + 1}: use numbers, + - * / % ^, parentheses and functions such as sqrt(x).`,
      );
    }
    const normalised =
      operator === '×'
        ? '*'
        : operator === '÷'
          ? '/'
          : operator === '−'
            ? '-'
            : operator === '**'
              ? '^'
              : operator;
    tokens.push({ kind: 'operator', value: normalised, at });
    at += operator.length;
  }
  tokens.push({ kind: 'end', at });
  return tokens;
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the expression';
    case 'number':
      return `the number ${token.value} at position ${token.at + 1}`;
    case 'name':
      return `"${token.value}" at position ${token.at + 1}`;
    case 'operator':
      return `"${token.value}" at position ${token.at + 1}`;
  }
}

/** A recursive-descent parser that evaluates as it parses; nothing is ever compiled or `eval`ed. */
class Evaluator {
  #tokens: Token[];
  #index = 0;
  #depth = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  get #current(): Token {
    return this.#tokens[this.#index] ?? { kind: 'end', at: 0 };
  }

  #isOperator(value: string): boolean {
    const token = this.#current;
    return token.kind === 'operator' && token.value === value;
  }

  #expect(value: string): void {
    if (!this.#isOperator(value)) {
      throw new CalculationError(`Expected "${value}" but found ${describe(this.#current)}.`);
    }
    this.#index += 1;
  }

  #nest<T>(parse: () => T): T {
    this.#depth += 1;
    if (this.#depth > MAX_DEPTH) {
      throw new CalculationError(`The expression nests more than ${MAX_DEPTH} levels deep.`);
    }
    try {
      return parse();
    } finally {
      this.#depth -= 1;
    }
  }

  evaluate(): number {
    const value = this.#sum();
    if (this.#current.kind !== 'end') {
      throw new CalculationError(`Unexpected ${describe(this.#current)}.`);
    }
    return value;
  }

  // sum := product (('+' | '-') product)*
  #sum(): number {
    let value = this.#product();
    while (this.#isOperator('+') || this.#isOperator('-')) {
      const plus = this.#isOperator('+');
      this.#index += 1;
      const right = this.#product();
      value = plus ? value + right : value - right;
    }
    return value;
  }

  // product := unary (('*' | '/' | '%') unary)*
  #product(): number {
    let value = this.#unary();
    for (;;) {
      const token = this.#current;
      if (token.kind !== 'operator' || !['*', '/', '%'].includes(token.value)) return value;
      this.#index += 1;
      const right = this.#unary();
      if ((token.value === '/' || token.value === '%') && right === 0) {
        throw new CalculationError(`Division by zero at position ${token.at + 1}.`);
      }
      value =
        token.value === '*' ? value * right : token.value === '/' ? value / right : value % right;
    }
  }

  // unary := ('+' | '-') unary | power
  #unary(): number {
    if (this.#isOperator('-') || this.#isOperator('+')) {
      const negative = this.#isOperator('-');
      this.#index += 1;
      const value = this.#nest(() => this.#unary());
      return negative ? -value : value;
    }
    return this.#power();
  }

  // power := postfix ('^' unary)?   (right-associative, binds tighter than a leading minus: -2^2 = -4)
  #power(): number {
    const base = this.#postfix();
    if (!this.#isOperator('^')) return base;
    this.#index += 1;
    const exponent = this.#nest(() => this.#unary());
    return base ** exponent;
  }

  // postfix := primary '!'*
  #postfix(): number {
    let value = this.#primary();
    while (this.#isOperator('!')) {
      this.#index += 1;
      value = factorial(value);
    }
    return value;
  }

  // primary := number | constant | function '(' arguments ')' | '(' sum ')'
  #primary(): number {
    const token = this.#current;
    if (token.kind === 'number') {
      this.#index += 1;
      return token.value;
    }
    if (token.kind === 'operator' && token.value === '(') {
      this.#index += 1;
      const value = this.#nest(() => this.#sum());
      this.#expect(')');
      return value;
    }
    if (token.kind === 'name') {
      this.#index += 1;
      const constant = CONSTANTS.get(token.value);
      if (constant !== undefined && !this.#isOperator('(')) return constant;
      const fn = FUNCTIONS.get(token.value);
      if (fn === undefined) {
        throw new CalculationError(
          `Unknown name "${token.value}" at position ${token.at + 1}. Known constants: ${CALCULATOR_NAMES.constants.join(', ')}; functions: ${CALCULATOR_NAMES.functions.join(', ')}.`,
        );
      }
      this.#expect('(');
      const args = this.#nest(() => this.#arguments());
      this.#expect(')');
      const [least, most] = fn.arity;
      if (args.length < least || args.length > most) {
        const expected = least === most ? `${least}` : `${least} to ${most}`;
        throw new CalculationError(
          `${token.value}() takes ${expected} argument${most === 1 ? '' : 's'}, got ${args.length}.`,
        );
      }
      return fn.apply(...args);
    }
    throw new CalculationError(`Expected a number, a name or "(" but found ${describe(token)}.`);
  }

  #arguments(): number[] {
    if (this.#isOperator(')')) return [];
    const values = [this.#sum()];
    while (this.#isOperator(',')) {
      this.#index += 1;
      values.push(this.#sum());
    }
    return values;
  }
}

/**
 * Evaluates an arithmetic expression safely: numbers (`1.5`, `2e3`, `1_000`), `+ - * / %`, `^` or
 * `**` for powers, `!` for factorials, parentheses, the constants `pi`, `e`, `tau` and functions
 * such as `sqrt`, `round(x, digits)`, `log(x, base)`, `min`, `max`. A hand-written parser: the
 * text is never passed to `eval` or `Function`.
 *
 * @throws CalculationError for a malformed expression, an unknown name, a division by zero or a
 *   result that is not a finite number; the message names the problem and its position.
 * @example
 * calculate('(17 + 25) * 3'); // 126
 * calculate('sqrt(2) ^ 2'); // 2.0000000000000004
 */
export function calculate(expression: string): number {
  const text = expression.trim();
  if (text === '') throw new CalculationError('The expression is empty.');
  if (text.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculationError(
      `The expression is ${text.length} characters long; calculate takes at most ${MAX_EXPRESSION_LENGTH}.`,
    );
  }
  const value = new Evaluator(tokenize(text)).evaluate();
  if (Number.isNaN(value)) {
    throw new CalculationError(
      `"${text}" is not a real number (e.g. the square root of a negative number).`,
    );
  }
  if (!Number.isFinite(value)) throw new CalculationError(`"${text}" is too large to compute.`);
  return value;
}

/**
 * A number as `calculate` reports it: up to 12 significant digits, so binary rounding noise
 * (`0.1 + 0.2`) does not reach the model.
 *
 * @example
 * formatNumber(0.1 + 0.2); // '0.3'
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  return String(Number(value.toPrecision(12)));
}
