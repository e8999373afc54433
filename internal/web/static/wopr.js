// wopr: helpers shared by the pages. No framework, no other site.
"use strict";

// api sends a JSON request to the server and returns the decoded answer;
// a refused request throws an Error with the server's reason.
async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    throw new Error(res.status + " " + res.statusText);
  }
  if (!res.ok) {
    throw new Error(data && data.error ? data.error : res.status + " " + res.statusText);
  }
  return data;
}

// el makes an element with attributes and children.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c);
  }
  return e;
}

// $ finds one element.
function $(sel, root) {
  return (root || document).querySelector(sel);
}
