import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readItemType, readJsonLd, type SchemaFlags } from '../../../core/enrichment/schema-types.ts'

const fromJsonLd = (source: string): SchemaFlags => {
  const flags = { article: false, sourceCode: false }
  readJsonLd(source, flags)
  return flags
}
const fromItemType = (value: string): SchemaFlags => {
  const flags = { article: false, sourceCode: false }
  readItemType(value, flags)
  return flags
}

test('readJsonLd() finds Article subtypes in objects, arrays, @graph and mainEntity', () => {
  assert.deepEqual(fromJsonLd('{"@type":"BlogPosting"}'), { article: true, sourceCode: false })
  assert.deepEqual(fromJsonLd('[{"@type":"Organization"},{"@type":"https://schema.org/ScholarlyArticle"}]'), {
    article: true,
    sourceCode: false,
  })
  assert.deepEqual(fromJsonLd('{"@graph":[{"@type":["WebPage"]},{"@type":["Thing","LiveBlogPosting"]}]}'), {
    article: true,
    sourceCode: false,
  })
  assert.deepEqual(fromJsonLd('{"@type":"WebPage","mainEntity":{"@type":"SoftwareSourceCode"}}'), {
    article: false,
    sourceCode: true,
  })
})

test('readJsonLd() ignores types nested elsewhere, such as a linked repository', () => {
  assert.deepEqual(
    fromJsonLd('{"@type":"WebPage","about":{"@type":"SoftwareSourceCode"},"author":{"@type":"Person"}}'),
    { article: false, sourceCode: false },
  )
})

test('readJsonLd() accepts HTML comment and CDATA wrappers and ignores invalid JSON', () => {
  assert.deepEqual(fromJsonLd('<!-- {"@type":"NewsArticle"} -->'), { article: true, sourceCode: false })
  assert.deepEqual(fromJsonLd('//<![CDATA[\n{"@type":"TechArticle"}\n//]]>'), { article: true, sourceCode: false })
  assert.deepEqual(fromJsonLd('{"@type":"Article",}'), { article: false, sourceCode: false })
  assert.deepEqual(fromJsonLd(''), { article: false, sourceCode: false })
})

test('readJsonLd() stops at a nesting depth limit', () => {
  const deep = `${'['.repeat(50)}{"@type":"Article"}${']'.repeat(50)}`
  assert.deepEqual(fromJsonLd(deep), { article: false, sourceCode: false })
})

test('readItemType() reads schema.org type URLs only', () => {
  assert.deepEqual(fromItemType('https://schema.org/Article'), { article: true, sourceCode: false })
  assert.deepEqual(fromItemType(' http://schema.org/Thing  http://www.schema.org/SoftwareSourceCode '), {
    article: false,
    sourceCode: true,
  })
  assert.deepEqual(fromItemType('https://example.com/Article Article'), { article: false, sourceCode: false })
})
