// /anydice (a page's address under `chancekit serve`) -> anydice.html, the share link's
// state (#ck=...) kept: so a link made on the local server opens on the site with only its
// origin replaced (docs/site.md)
"use strict";
location.replace("../" + document.body.dataset.target + location.hash);
