import { describe, expect, it } from 'vitest';
import { html as h, join } from './html';

// `h`, not `h`: Prettier would reformat an `h` template's markup, and these compare it exactly.

describe('html', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const payload = `<script>alert("x")</script>' onmouseover='x`;
    expect(h`<p title="${payload}">${payload}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x</p>',
    );
  });

  it('keeps nested html as it is, renders lists, and drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((item) => h`<li>${item}</li>`);
    const page = h`<ul>${items}</ul>${null}${undefined}${false}${0}`;
    expect(page.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
    expect(join([h`<i>1</i>`, h`<i>2</i>`]).value).toBe('<i>1</i><i>2</i>');
  });
});
