import { describe, expect, it } from 'vitest';
import { flowToJson, parseFlow } from './flow-definition.ts';

describe('flow definitions', () => {
  it('fills defaults and round-trips through the stored form', () => {
    const def = parseFlow('faces', { steps: [{ endpoint: 'identity/face' }, { endpoint: 'photo/descriptor', over: 'face', max_objects: 3 }, { endpoint: 'image_matching/visual_hash', hash_type: 'bmh1' }] });
    expect(def.steps.map((s) => s.as)).toEqual(['face', 'descriptor', 'visual_hash']);
    expect(def.steps[1]).toMatchObject({ over: 'face', maxObjects: 3 });
    expect(parseFlow('faces', flowToJson(def))).toEqual(def);
  });

  it.each([
    ['Bad Name', { steps: [{ endpoint: 'identity/face' }] }, /flow name/],
    ['f', { steps: [] }, /1 to 10 steps/],
    ['f', { steps: Array.from({ length: 11 }, () => ({ endpoint: 'identity/face' })) }, /1 to 10 steps/],
    ['f', { steps: [{ endpoint: 'identity/teleport' }] }, /step 1: "endpoint" must be one of/],
    ['f', { steps: [{ endpoint: 'identity/face' }, { endpoint: 'identity/face' }] }, /step 2: "as" face is used/],
    ['f', { steps: [{ endpoint: 'photo/descriptor', over: 'face' }] }, /step 1: "over" must name an earlier step/],
    ['f', { steps: [{ endpoint: 'photo/descriptor' }, { endpoint: 'identity/face', over: 'descriptor' }] }, /identity\/face or identity\/person step/],
    ['f', { steps: [{ endpoint: 'identity/face', hash_type: 'phash' }] }, /hash_type/],
    ['f', { steps: [{ endpoint: 'identity/face', max_objects: 5 }] }, /max_objects/],
    ['f', { steps: [{ endpoint: 'identity/face', as: '_secret' }] }, /"as" must be a field name/],
    ['f', { steps: [{ endpoint: 'identity/face', colour: 'red' }] }, /unknown field "colour"/],
    ['f', { name: 'g', steps: [{ endpoint: 'identity/face' }] }, /names the flow "g"/],
    ['f', [], /JSON object/],
  ])('refuses %s %j', (name, def, message) => {
    expect(() => parseFlow(name, def)).toThrow(message);
  });
});
