/** The response schemas as the serializer gets them: unions it can tell apart by type become type lists. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { forSerialization } from '../../src/platform/http/serialization.ts';

const Card = Type.Object({ brand: Type.String(), last4: Type.String() });
const Redirect = Type.Object({ type: Type.Literal('redirect'), url: Type.String() });
const Secret = Type.Object({ type: Type.Literal('stripe_next_action'), client_secret: Type.String() });

describe('forSerialization', () => {
  const cases: [string, unknown, unknown][] = [
    ['a nullable string', Type.Union([Type.String(), Type.Null()]), { type: ['string', 'null'] }],
    ['a nullable integer', Type.Union([Type.Integer(), Type.Null()]), { type: ['integer', 'null'] }],
    [
      'string literals, described',
      Type.Union([Type.Literal('sandbox'), Type.Literal('stripe')], { description: 'Which one.' }),
      { type: 'string', description: 'Which one.' },
    ],
    [
      'a constrained string or null',
      Type.Union([Type.String({ pattern: '^\\d+$', description: 'Digits.' }), Type.Null()]),
      { type: ['string', 'null'] },
    ],
    ['a nullable object', Type.Union([Card, Type.Null()]), { ...Card, type: ['object', 'null'] }],
    [
      'a nullable array',
      Type.Union([Type.Array(Type.String()), Type.Null()]),
      { type: ['array', 'null'], items: { type: 'string' } },
    ],
    [
      'a string or a number',
      Type.Union([Type.String(), Type.Number()]),
      Type.Union([Type.String(), Type.Number()]),
    ],
    ['only null', Type.Null(), { type: 'null' }],
  ];
  for (const [name, schema, expected] of cases) {
    it(name, () => assert.deepEqual(forSerialization(schema), JSON.parse(JSON.stringify(expected))));
  }

  it('a union of objects keeps its options (each made plain), and nested unions are made plain too', () => {
    const made = forSerialization(
      Type.Object({
        next: Type.Union([Redirect, Secret, Type.Null()]),
        code: Type.Union([Type.String(), Type.Null()]),
      }),
    ) as { properties: { next: { anyOf: { properties: { type: unknown } }[] }; code: unknown } };
    assert.equal(made.properties.next.anyOf.length, 3);
    assert.deepEqual(made.properties.next.anyOf[0]!.properties.type, { type: 'string', const: 'redirect' });
    assert.deepEqual(made.properties.code, { type: ['string', 'null'] });
  });

  it('writes the same JSON as the schema as written, for every option of each union', () => {
    const schema = Type.Object({
      card: Type.Union([Card, Type.Null()]),
      code: Type.Union([Type.String(), Type.Null()]),
      count: Type.Union([Type.Integer(), Type.Null()]),
      processor: Type.Union([Type.Literal('sandbox'), Type.Literal('stripe')]),
      next: Type.Union([Redirect, Secret, Type.Null()]),
    });
    const asWritten = fastJson(schema as never);
    const made = fastJson(forSerialization(schema) as never);
    for (const value of [
      { card: { brand: 'visa', last4: '4242' }, code: 'x', count: 3, processor: 'stripe', next: null },
      { card: null, code: null, count: null, processor: 'sandbox', next: { type: 'redirect', url: 'u' } },
      {
        card: null,
        code: 'a"b',
        count: 0,
        processor: 'sandbox',
        next: { type: 'stripe_next_action', client_secret: 's' },
      },
    ]) {
      assert.equal(made(value), asWritten(value));
    }
  });
});
