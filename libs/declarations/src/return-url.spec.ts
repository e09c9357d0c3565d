import { localReturnUrl } from './return-url';

describe('localReturnUrl (open-redirect guard)', () => {
  it.each([
    ['/', '/'],
    ['/Account/Logout', '/Account/Logout'],
    ['/grids?page=2#top', '/grids?page=2#top'],
    ['/a/b/../c', '/a/c'],
  ])('keeps the local path %p', (input, expected) => {
    expect(localReturnUrl(input)).toBe(expected);
  });

  it.each([
    undefined,
    null,
    42,
    ['/', '/x'],
    '',
    'relative/path',
    'https://evil.example/',
    'http:evil.example',
    '//evil.example',
    '//evil.example/path',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\\/evil.example',
    '\\/evil.example',
    'javascript:alert(1)',
    '/%2f%2fevil.example',
    '/%5Cevil.example',
    '/\tevil',
    '/\n//evil.example',
    '/ /evil',
    'data:text/html,hi',
    `/${'a'.repeat(3000)}`,
  ])('replaces the hostile %p by /', (input) => {
    expect(localReturnUrl(input)).toBe('/');
  });
});
