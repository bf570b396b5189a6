import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isTrackingParam, TRACKING_PARAMS } from '../../../core/url/tracking-params.ts'

test('TRACKING_PARAMS lists exactly the contract names', () => {
  assert.deepEqual([...TRACKING_PARAMS].sort(), [
    '_hsenc',
    '_hsmi',
    'dclid',
    'fbclid',
    'gbraid',
    'gclid',
    'igshid',
    'mc_cid',
    'mc_eid',
    'mkt_tok',
    'msclkid',
    'ref_src',
    'wbraid',
    'yclid',
  ])
})

test('isTrackingParam() matches every listed name', () => {
  for (const name of TRACKING_PARAMS) assert.equal(isTrackingParam(name), true, name)
})

test('isTrackingParam() matches any utm_* name', () => {
  for (const name of [
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_term',
    'utm_content',
    'utm_id',
    'utm_',
    'utm_whatever',
  ]) {
    assert.equal(isTrackingParam(name), true, name)
  }
})

test('isTrackingParam() ignores case', () => {
  assert.equal(isTrackingParam('UTM_SOURCE'), true)
  assert.equal(isTrackingParam('Utm_Medium'), true)
  assert.equal(isTrackingParam('FBCLID'), true)
})

test('isTrackingParam() keeps meaningful parameters', () => {
  for (const name of ['q', 'id', 'ref', 'utm', 'utmsource', 'source', 'page', 'v', 'fbclid_x', 'x_utm_source', '']) {
    assert.equal(isTrackingParam(name), false, name)
  }
})
