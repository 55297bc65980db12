// A map from any string to one kind of value, as a structural schema states it (additionalProperties);
// TypeBox's Record would say patternProperties, which a CRD may not carry.

import Type, { type Static, type TSchema } from 'typebox';

export const stringMap = <Value extends TSchema>(value: Value, options: Readonly<Record<string, unknown>> = {}) =>
  Type.Unsafe<Record<string, Static<Value>>>({ type: 'object', ...options, additionalProperties: value });
