import { describe, expect, it } from '@jest/globals';
import { calculate, formatNumber, MAX_EXPRESSION_LENGTH } from './calculate';
import { CalculationError } from './tool-error';

function failure(expression: string): CalculationError {
  try {
    calculate(expression);
  } catch (error) {
    if (error instanceof CalculationError) return error;
    throw error;
  }
  throw new Error(`${expression} did not fail`);
}

describe('calculate', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 10', 1024],
    ['2 ** 3 ** 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['--3', 3],
    ['5!', 120],
    ['sqrt(1764)', 42],
    ['round(2 / 3, 2)', 0.67],
    ['max(3, 9, 4) - min(3, 9, 4)', 6],
    ['log(8, 2)', 3],
    ['log10(1000)', 3],
    ['1_000 * 3', 3000],
    ['2e3 + .5', 2000.5],
    ['0.17 * 2340', 397.8],
    ['6 × 7 ÷ 2 − 1', 20],
    ['PI', Math.PI],
    ['abs(-3) + floor(2.7) + ceil(2.1)', 8],
  ])('evaluates %s', (expression, expected) => {
    expect(calculate(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['', /empty/],
    ['1 +', /Expected a number.*end of the expression/],
    ['(1 + 2', /Expected "\)" but found the end/],
    ['1 + 2)', /Unexpected "\)" at position 6/],
    ['2 $ 3', /Unexpected character "\$" at position 3/],
    ['foo(2)', /Unknown name "foo" at position 1/],
    ['process.exit(1)', /Unexpected character "\." at position 8/],
    ['e(2)', /Unknown name "e" at position 1/],
    ['1 / 0', /Division by zero at position 3/],
    ['5 % 0', /Division by zero/],
    ['sqrt(-1)', /not a real number/],
    ['10 ^ 400', /too large/],
    ['sqrt(1, 2)', /sqrt\(\) takes 1 argument, got 2/],
    ['pow(2)', /pow\(\) takes 2 arguments, got 1/],
    ['(2.5)!', /factorial needs a whole number/],
    ['1.2.3', /Unexpected the number 0.3/],
  ])('refuses %p with a clear error', (expression, message) => {
    const error = failure(expression);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(message);
  });

  it('refuses expressions that are too long or nest too deeply', () => {
    expect(failure('1+'.repeat(MAX_EXPRESSION_LENGTH) + '1').message).toMatch(/at most 500/);
    expect(failure('('.repeat(100) + '1' + ')'.repeat(100)).message).toMatch(/nests more than/);
    expect(failure('-'.repeat(100) + '1').message).toMatch(/nests more than/);
  });

  it('never evaluates JavaScript', () => {
    expect(failure('constructor').message).toMatch(/Unknown name "constructor"/);
    expect(failure('toString(1)').message).toMatch(/Unknown name "tostring"/);
    expect(failure('"a" + 1').message).toMatch(/Unexpected character/);
  });
});

describe('formatNumber', () => {
  it('hides binary rounding noise and keeps integers whole', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(126)).toBe('126');
    expect(formatNumber(1 / 3)).toBe('0.333333333333');
  });
});
