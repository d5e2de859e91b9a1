type JsonSchemaNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveRef(ref: string, root: JsonSchemaNode): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const key of ref.slice(2).split('/')) {
    node = isNode(node) ? node[key.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  }
  return node;
}

function sampleNode(options: {
  node: unknown;
  root: JsonSchemaNode;
  text: string;
  depth: number;
}): unknown {
  const { node, root, text, depth } = options;
  if (!isNode(node) || depth > 16) return null;
  const next = (child: unknown): unknown =>
    sampleNode({ node: child, root, text, depth: depth + 1 });
  if (typeof node['$ref'] === 'string') return next(resolveRef(node['$ref'], root));
  if ('const' in node) return node['const'];
  if (Array.isArray(node['enum'])) return node['enum'][0] ?? null;
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const choices: unknown = node[key];
    if (Array.isArray(choices) && choices.length > 0) {
      const list: unknown[] = choices;
      const nonNull = list.find((choice) => !isNode(choice) || choice['type'] !== 'null');
      return next(nonNull ?? list[0]);
    }
  }
  const rawType = node['type'];
  const type = Array.isArray(rawType)
    ? (rawType.find((entry) => entry !== 'null') as unknown)
    : rawType;
  switch (type) {
    case 'string': {
      const minLength = typeof node['minLength'] === 'number' ? node['minLength'] : 0;
      return text.padEnd(minLength, '.');
    }
    case 'integer':
    case 'number':
      return typeof node['minimum'] === 'number' ? node['minimum'] : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const minItems = typeof node['minItems'] === 'number' ? node['minItems'] : 0;
      return Array.from({ length: minItems }, () => next(node['items']));
    }
    default: {
      const properties = isNode(node['properties']) ? node['properties'] : {};
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, next(value)]),
      );
    }
  }
}

/**
 * Makes a value that satisfies a (structured-output style) JSON Schema: every declared property
 * is present, strings carry `text` (padded to `minLength`), numbers are 0 (or `minimum`), enums take their first value,
 * arrays have `minItems` items. Enough for zod-validated structured output in tests.
 *
 * @example
 * sampleJsonSchema({ schema: { type: 'object', properties: { answer: { type: 'string' } } }, text: 'hi' });
 * // { answer: 'hi' }
 */
export function sampleJsonSchema({ schema, text }: { schema: unknown; text: string }): unknown {
  return sampleNode({ node: schema, root: isNode(schema) ? schema : {}, text, depth: 0 });
}
