/*
 * GTR in the respondent's browser: a port of microanon.methods.collect (gtr.py, modes "exact" and
 * "greedy"; taxonomy.py; compress.py) for the survey page served by `microanon serve`.
 *
 * Zhang & Zhang, Generalization-Based Privacy-Preserving Data Collection, DaWaK 2008.
 *
 * One file for the browser (a classic <script>, it sets globalThis.MicroanonGTR) and for node
 * (require() returns the same object): tests/server_js/run_vectors.js runs the committed test
 * vectors through it and tests/server_js/test_gtr_js.py compares with the Python gtr.
 *
 * Exactness. The Python gtr screens candidates in float64 with a rigorous error bound and decides
 * the rest in rational arithmetic, so its answer is that of exact arithmetic. This port computes
 * everything exactly (BigInt rationals; leaf weights are read as the exact rationals of their
 * float64 values, like Fraction(float)), so it gives the same answer without the screening:
 * among the candidates t = (QI steps, j-th sensitive value on the chain of o[SA]) that satisfy
 * Theorem 1 exactly, the one with the least key (loss L(t), -phi_QI(o, t), QI steps in survey
 * order, SA steps), or null (the respondent abstains). Greedy mode follows gtr.py's greedy
 * subroutines step by step (same candidate order and tie-breaks) and, when they find nothing, the
 * same complete search (exact mode's answer); gtr.py makes each of their
 * decisions exactly too (float screens, rational arithmetic when a comparison is close), so the
 * two agree on every answer.
 *
 * Nothing here talks to the network; survey.js does that.
 */
(function (root, factory) {
  "use strict";
  const api = factory();
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.MicroanonGTR = api;
  }
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  /** Largest number of quasi-identifier generalizations the exact mode enumerates (gtr.py). */
  const EXACT_LIMIT = 1 << 22;

  // ------------------------------------------------------------------ exact rationals (BigInt)
  function bigAbs(a) {
    return a < 0n ? -a : a;
  }
  function gcd(a, b) {
    a = bigAbs(a);
    b = bigAbs(b);
    while (b) {
      [a, b] = [b, a % b];
    }
    return a;
  }
  /** A normalized rational {n, d} with d > 0. */
  function Q(n, d = 1n) {
    if (d === 0n) throw new Error("division by zero");
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n, d);
    return g > 1n ? { n: n / g, d: d / g } : { n, d };
  }
  const ZERO = Q(0n);
  const ONE = Q(1n);
  const add = (a, b) => (a.d === b.d ? Q(a.n + b.n, a.d) : Q(a.n * b.d + b.n * a.d, a.d * b.d));
  const sub = (a, b) => add(a, { n: -b.n, d: b.d });
  const mul = (a, b) => Q(a.n * b.n, a.d * b.d);
  const div = (a, b) => Q(a.n * b.d, a.d * b.n);
  /** -1, 0 or 1 as a < b, a = b, a > b. */
  function cmp(a, b) {
    const l = a.n * b.d;
    const r = b.n * a.d;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  /** The exact rational value of a float64 (as Python's Fraction(float)). */
  function fromDouble(x) {
    if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
    if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return Q(BigInt(x));
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    const sign = bits >> 63n ? -1n : 1n;
    const exp = Number((bits >> 52n) & 0x7ffn);
    let mant = bits & ((1n << 52n) - 1n);
    let e;
    if (exp === 0) {
      e = -1074;
    } else {
      mant |= 1n << 52n;
      e = exp - 1075;
    }
    return e >= 0 ? Q(sign * mant * (1n << BigInt(e))) : Q(sign * mant, 1n << BigInt(-e));
  }
  /** τ from "p/q", a decimal string, or a number read as the decimal it prints as. */
  function parseTau(tau) {
    const text = String(tau).trim();
    let q;
    const m = /^([0-9]+)\s*\/\s*([0-9]+)$/.exec(text);
    if (m) {
      q = Q(BigInt(m[1]), BigInt(m[2]));
    } else {
      const dm = /^([0-9]*)(?:\.([0-9]*))?$/.exec(text);
      if (!dm || (dm[1] === "" && !dm[2])) throw new Error(`tau must be a number in (0, 1], got ${tau}`);
      const frac = dm[2] || "";
      q = Q(BigInt((dm[1] || "0") + frac), 10n ** BigInt(frac.length));
    }
    if (cmp(q, ZERO) <= 0 || cmp(q, ONE) > 0) throw new Error(`tau must be in (0, 1], got ${tau}`);
    return q;
  }
  const toNumber = (a) => Number(a.n) / Number(a.d);
  const qToString = (a) => (a.d === 1n ? `${a.n}` : `${a.n}/${a.d}`);

  // ------------------------------------------------------------------ taxonomies
  /** Python's value_key: the lookup key of a label (integral numbers lose their ".0"). */
  function valueKey(v) {
    if (typeof v === "string") return v.trim();
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(v);
    if (typeof v === "boolean") return v ? "True" : "False";
    return String(v).trim();
  }

  /**
   * One attribute's taxonomy from its label paths (Hierarchy.to_dict), with pre-order codes:
   * the root is 0, every node comes before its subtree, siblings in leaf order (taxonomy.py).
   */
  function buildTaxonomy(name, doc) {
    const paths = doc.paths;
    if (!Array.isArray(paths) || paths.length === 0) throw new Error(`attribute ${name}: no leaves`);
    // Nodes keyed by their root-to-node key path, siblings in order of first appearance.
    const tmp = [{ label: paths[0][0], children: [], key: valueKey(paths[0][0]) }];
    const index = new Map([[JSON.stringify([valueKey(paths[0][0])]), 0]]);
    const leafOfPath = [];
    for (const p of paths) {
      const key = [];
      let prev = -1;
      for (const label of p) {
        key.push(valueKey(label));
        const k = JSON.stringify(key);
        let node = index.get(k);
        if (node === undefined) {
          node = tmp.length;
          index.set(k, node);
          tmp.push({ label, children: [], key: valueKey(label) });
          tmp[prev].children.push(node);
        }
        prev = node;
      }
      leafOfPath.push(prev);
    }
    // Pre-order numbering.
    const label = [];
    const parent = [];
    const depth = [];
    const lo = [];
    const hi = [];
    const isLeaf = [];
    const leafNode = [];
    const codeOfTmp = new Array(tmp.length);
    const visit = (t, par, dep) => {
      const code = label.length;
      codeOfTmp[t] = code;
      label.push(tmp[t].label);
      parent.push(par);
      depth.push(dep);
      lo.push(leafNode.length);
      hi.push(0);
      isLeaf.push(tmp[t].children.length === 0);
      if (tmp[t].children.length === 0) leafNode.push(code);
      for (const c of tmp[t].children) visit(c, code, dep + 1);
      hi[code] = leafNode.length;
    };
    visit(0, -1, 0);
    const nLeaves = leafNode.length;
    // Leaf weights come in path order; paths are in leaf order when written by to_dict, but map
    // them through the nodes to be safe.
    const raw = doc.weights || paths.map(() => 1);
    const leafWeight = new Array(nLeaves);
    leafOfPath.forEach((t, i) => {
      const w = Number(raw[i]);
      if (!(w > 0)) throw new Error(`attribute ${name}: leaf weights must be positive`);
      leafWeight[lo[codeOfTmp[t]]] = fromDouble(w);
    });
    const cum = [ZERO];
    for (const w of leafWeight) cum.push(add(cum[cum.length - 1], w));
    const weight = lo.map((a, v) => sub(cum[hi[v]], cum[a]));
    // label -> node: the deepest node carrying it (Hierarchy._build).
    const byKey = new Map();
    for (let v = 0; v < label.length; v++) {
      const k = valueKey(label[v]);
      const other = byKey.get(k);
      if (other === undefined || depth[v] > depth[other]) byKey.set(k, v);
    }
    const tx = {
      name,
      label,
      parent,
      depth,
      lo,
      hi,
      isLeaf,
      leafNode,
      nLeaves,
      nNodes: label.length,
      leafCount: lo.map((a, v) => hi[v] - a),
      leafWeight,
      weight,
      byKey,
      /** Code of a label, or -1. */
      code(value) {
        const v = byKey.get(valueKey(value));
        return v === undefined ? -1 : v;
      },
      /** Codes of a leaf and its ancestors, leaf first, root last. */
      chain(leaf) {
        const out = [];
        for (let v = leaf; v >= 0; v = parent[v]) out.push(v);
        return out;
      },
      /** The leaves' labels in leaf order (the choices of the page's form). */
      leaves() {
        return leafNode.map((v) => label[v]);
      },
      /** Whether node generalizes other (node is other or one of its ancestors). */
      generalizes(node, other) {
        return lo[node] <= lo[other] && hi[other] <= hi[node];
      },
    };
    return tx;
  }

  /** A survey from the GET /survey document: attributes (QIs then the sensitive one). */
  function buildSurvey(doc) {
    const quasi = doc.quasi.map(String);
    const attributes = [...quasi, String(doc.sensitive)];
    const taxonomies = attributes.map((a) => {
      const h = doc.hierarchies[a];
      if (!h) throw new Error(`no taxonomy for attribute ${a}`);
      return buildTaxonomy(a, h);
    });
    return {
      quasi,
      sensitive: String(doc.sensitive),
      attributes,
      taxonomies,
      cardinalities: taxonomies.map((t) => t.nNodes),
    };
  }

  /** Codes of a respondent's base tuple given by labels (array in attribute order or object). */
  function encodeBase(survey, o) {
    const values = Array.isArray(o) ? o : survey.attributes.map((a) => o[a]);
    if (values.length !== survey.attributes.length) {
      throw new Error(`the tuple needs ${survey.attributes.length} values`);
    }
    return values.map((v, j) => {
      const tx = survey.taxonomies[j];
      if (v === undefined || v === null || v === "") {
        throw new Error(`attribute '${tx.name}': no value`);
      }
      const c = tx.code(v);
      if (c < 0) throw new Error(`attribute '${tx.name}': value ${JSON.stringify(v)} is not in its taxonomy`);
      if (!tx.isLeaf[c]) {
        throw new Error(`attribute '${tx.name}': ${JSON.stringify(v)} is a generalized value`);
      }
      return c;
    });
  }

  // ------------------------------------------------------------------ collected set (bytes)
  /**
   * Decode CollectedSet.to_bytes (compress.py): header "MACS", format 1, encoding (0 index,
   * 1 bits), cardinalities, pairs, version, count width; tuples; counts (little-endian).
   * Returns {version, codes: [[...], ...], counts: [...]}.
   */
  function decodeCollected(survey, buffer) {
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const fail = (msg) => {
      throw new Error(`collected set: ${msg}`);
    };
    if (bytes.length < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== "MACS") {
      fail("bad magic bytes");
    }
    const fmt = bytes[4];
    const enc = bytes[5];
    const m = view.getUint16(6, true);
    if (fmt !== 1 || enc > 1) fail(`unsupported format ${fmt}/${enc}`);
    let pos = 8;
    if (bytes.length < pos + 4 * m + 17) fail("truncated header");
    const card = [];
    for (let j = 0; j < m; j++, pos += 4) card.push(view.getUint32(pos, true));
    if (card.join(",") !== survey.cardinalities.join(",")) {
      fail(`code spaces ${card} differ from the survey's ${survey.cardinalities}`);
    }
    const n = Number(view.getBigUint64(pos, true));
    const version = Number(view.getBigUint64(pos + 8, true));
    const width = bytes[pos + 16];
    pos += 17;
    if (![1, 2, 4, 8].includes(width)) fail(`bad count width ${width}`);
    const codes = [];
    if (enc === 1) {
      const bits = card.map((c) => (c - 1).toString(2).replace(/^0$/, "").length);
      const total = bits.reduce((a, b) => a + b, 0);
      const size = Math.ceil((n * total) / 8);
      if (bytes.length < pos + size) fail("truncated tuples");
      let bit = pos * 8;
      for (let i = 0; i < n; i++) {
        const row = [];
        for (const b of bits) {
          let v = 0;
          for (let k = 0; k < b; k++, bit++) {
            v = v * 2 + ((bytes[bit >> 3] >> (7 - (bit & 7))) & 1);
          }
          row.push(v);
        }
        codes.push(row);
      }
      pos += size;
    } else {
      let space = 1n;
      for (const c of card) space *= BigInt(c);
      const kb = Math.ceil((space - 1n).toString(2).replace(/^0$/, "").length / 8);
      if (bytes.length < pos + n * kb) fail("truncated tuples");
      for (let i = 0; i < n; i++) {
        let key = 0n;
        for (let k = kb - 1; k >= 0; k--) key = (key << 8n) | BigInt(bytes[pos + i * kb + k]);
        if (key >= space) fail(`index ${key} is outside the code space`);
        const row = new Array(m);
        for (let j = m - 1; j >= 0; j--) {
          row[j] = Number(key % BigInt(card[j]));
          key /= BigInt(card[j]);
        }
        codes.push(row);
      }
      pos += n * kb;
    }
    if (bytes.length !== pos + n * width) fail(`expected ${pos + n * width} bytes, got ${bytes.length}`);
    const counts = [];
    for (let i = 0; i < n; i++) {
      let c = 0n;
      for (let k = width - 1; k >= 0; k--) c = (c << 8n) | BigInt(bytes[pos + i * width + k]);
      if (c < 1n) fail("counts must be positive");
      counts.push(c);
    }
    for (const row of codes) {
      row.forEach((c, j) => {
        if (c >= card[j]) fail(`code of attribute '${survey.attributes[j]}' outside 0..${card[j] - 1}`);
      });
    }
    return { version, codes, counts };
  }

  // ------------------------------------------------------------------ GTR (exact mode)
  function lcm(a, b) {
    return (a / gcd(a, b)) * b;
  }

  /** Integer value losses per attribute and their common scale (Survey.loss_table). */
  function lossTables(survey, loss) {
    if (loss !== "paper" && loss !== "normalized") throw new Error(`unknown loss ${loss}`);
    const dens = survey.taxonomies.map((t) => BigInt(loss === "paper" ? t.nLeaves : t.nLeaves - 1));
    let scale = 1n;
    for (const d of dens) if (d > 0n) scale = lcm(scale, d);
    const tables = survey.taxonomies.map((t, j) =>
      t.leafCount.map((c) => (dens[j] === 0n ? 0n : BigInt(c - 1) * (scale / dens[j]))),
    );
    return { tables, scale };
  }

  // ------------------------------------------------------------------ GTR (greedy mode)
  const pow = (a, e) => ({ n: a.n ** e, d: a.d ** e });

  /**
   * One step of findOptimalQIValue (gtr.py _Step): attribute a one level up, gain ln R with
   * R = w(parent) / w(node) >= 1, cost dl; ranked by ln R / dl (+inf when dl = 0 < ln R, 0 when
   * both are 0). Compared exactly: as floats when they differ by more than a relative 1e-9,
   * else as the rational powers R_a^(dl_b/g) and R_b^(dl_a/g).
   */
  function makeStep(a, w0, w1, dl) {
    const r = div(w1, w0);
    const kind = dl > 0n ? 1 : cmp(r, ONE) > 0 ? 2 : 0;
    const ratio = kind === 1 ? Math.log1p(toNumber(div(sub(w1, w0), w0))) / Number(dl) : 0;
    return { a, r, dl, kind, ratio };
  }
  function cmpRatio(x, y) {
    if (x.kind !== 1 || y.kind !== 1) return Math.sign(x.kind - y.kind);
    if (Math.abs(x.ratio - y.ratio) > 1e-9 * Math.max(x.ratio, y.ratio)) {
      return x.ratio > y.ratio ? 1 : -1;
    }
    const g = gcd(x.dl, y.dl);
    return cmp(pow(x.r, y.dl / g), pow(y.r, x.dl / g));
  }

  /**
   * gtr.py's mode "greedy": for each sensitive value v_j on o[SA]'s chain, findOptimalQIValue
   * (one-level generalizations, best ratio first, then the smaller dl, then the earlier
   * attribute, until phi <= m2) then specializeQI (one level back toward o, the largest phi not
   * above m2, the earlier attribute on ties, until phi >= m1); the candidates that satisfy
   * Theorem 1 compete by the same key as in exact mode. Every comparison is exact.
   */
  function greedy(m, chains, qtx, qLoss, saLoss, bounds, phiOf, better) {
    const upperOk = (j, phi) => bounds[j].hi === null || cmp(phi, bounds[j].hi) <= 0;
    const lowerOk = (j, phi) => bounds[j].lo === null || cmp(phi, bounds[j].lo) >= 0;
    let best = null;
    for (let j = 0; j < saLoss.length; j++) {
      if (bounds[j] === null) continue;
      let steps = new Array(m).fill(0);
      let phi = ONE;
      let failed = false;
      while (!upperOk(j, phi)) {
        let pick = null;
        for (let a = 0; a < m; a++) {
          const s = steps[a];
          if (s + 1 >= chains[a].length) continue;
          const w = qtx[a].weight;
          const step = makeStep(a, w[chains[a][s]], w[chains[a][s + 1]], qLoss[a][s + 1] - qLoss[a][s]);
          if (pick === null) {
            pick = step;
          } else {
            const c = cmpRatio(step, pick);
            if (c > 0 || (c === 0 && step.dl < pick.dl)) pick = step;
          }
        }
        if (pick === null) {
          failed = true;
          break;
        }
        steps[pick.a] += 1;
        phi = phiOf(steps);
      }
      if (failed) continue;
      while (!lowerOk(j, phi)) {
        let pick = null;
        let pickPhi = null;
        for (let a = 0; a < m; a++) {
          if (steps[a] === 0) continue;
          const next = steps.slice();
          next[a] -= 1;
          const np = phiOf(next);
          if (upperOk(j, np) && (pick === null || cmp(np, pickPhi) > 0)) {
            pick = next;
            pickPhi = np;
          }
        }
        if (pick === null) {
          failed = true;
          break;
        }
        steps = pick;
        phi = pickPhi;
      }
      if (failed || !upperOk(j, phi) || !lowerOk(j, phi)) continue;
      let l = saLoss[j];
      for (let k = 0; k < m; k++) l += qLoss[k][steps[k]];
      const cand = { loss: l, phi, steps, j };
      if (best === null || better(cand, best)) best = cand;
    }
    return best;
  }

  /**
   * gtr.py's _search, for when the greedy subroutines find nothing: a complete depth-first
   * search, quasi-identifiers fixed one at a time from o's value up its chain, a branch cut when
   * its phi is already below lo, stays above hi with every remaining attribute at its root, or
   * its loss exceeds the best found. It returns exact mode's answer (null exactly when exact mode
   * abstains), so greedy mode never abstains while a protecting tuple exists.
   */
  function search(m, chains, factors, qLoss, saLoss, bounds, better) {
    const rest = new Array(m + 1).fill(ONE);
    for (let a = m - 1; a >= 0; a--) rest[a] = mul(rest[a + 1], factors[a][chains[a].length - 1]);
    let best = null;
    const steps = new Array(m).fill(0);
    const visit = (a, phi, ql, cands) => {
      const alive = cands.filter(
        (j) =>
          (best === null || ql + saLoss[j] <= best.loss) &&
          (bounds[j].lo === null || cmp(phi, bounds[j].lo) >= 0) &&
          (bounds[j].hi === null || cmp(mul(phi, rest[a]), bounds[j].hi) <= 0),
      );
      if (alive.length === 0) return;
      if (a === m) {
        for (const j of alive) {
          const cand = { loss: ql + saLoss[j], phi, steps: steps.slice(), j };
          if (best === null || better(cand, best)) best = cand;
        }
        return;
      }
      for (let s = 0; s < chains[a].length; s++) {
        steps[a] = s;
        visit(a + 1, mul(phi, factors[a][s]), ql + qLoss[a][s], alive);
      }
      steps[a] = 0;
    };
    const js = [];
    for (let j = 0; j < saLoss.length; j++) if (bounds[j] !== null) js.push(j);
    if (js.length > 0) visit(0, ONE, 0n, js);
    return best;
  }

  // ------------------------------------------------------------------ GTR (both modes)
  /**
   * The generalization of o with the least loss that protects it against the collected set.
   *
   * @param {object} survey  buildSurvey(...)
   * @param {{codes: number[][], counts: bigint[]}} collected  decodeCollected(...) or pairs
   * @param {Array|object} o  the respondent's base tuple (labels)
   * @param {string|number} tau  "3/10", "0.3" or 0.3
   * @param {{loss?: string, mode?: string}} options  loss: "paper" (default) or "normalized";
   *   mode: "exact" (default) or "greedy" (gtr.py's greedy subroutines, decided exactly)
   * @returns {null|{codes, labels, loss, phi, pv, exactWouldProtect}}  null: nothing protects o
   *   (abstain). exactWouldProtect[k] is null where the answer keeps o's value, else whether the
   *   answer with o's value in place of attribute k (the others as they are) would still protect
   *   o: never in exact mode (it would have lower loss, or equal loss and win the tie-break), but
   *   greedy mode's answer need not be the most precise.
   */
  function gtr(survey, collected, o, tau, options = {}) {
    const loss = options.loss || "paper";
    const mode = options.mode || "exact";
    if (mode !== "exact" && mode !== "greedy") throw new Error(`unknown mode ${mode}`);
    const tauQ = typeof tau === "object" && tau && "n" in tau ? tau : parseTau(tau);
    const omt = sub(ONE, tauQ);
    const oc = encodeBase(survey, o);
    const txs = survey.taxonomies;
    const qtx = txs.slice(0, -1);
    const sa = txs[txs.length - 1];
    const m = qtx.length;
    const oPos = oc.map((c, j) => txs[j].lo[c]);
    const oW = oc.map((c, j) => txs[j].leafWeight[oPos[j]]);

    // f-hat per sensitive node over the anonymous group G_o (eqs. 1-3), exactly.
    const groups = new Map(); // QI codes -> Map(SA node -> count)
    collected.codes.forEach((row, i) => {
      for (let j = 0; j < m; j++) {
        const t = row[j];
        if (!(qtx[j].lo[t] <= oPos[j] && oPos[j] < qtx[j].hi[t])) return;
      }
      const key = row.slice(0, m).join(",");
      let g = groups.get(key);
      if (!g) groups.set(key, (g = new Map()));
      const s = row[m];
      g.set(s, (g.get(s) || 0n) + BigInt(collected.counts[i]));
    });
    const byNode = new Map();
    for (const [key, g] of groups) {
      const nodes = key.split(",").map(Number);
      let phi = ONE;
      nodes.forEach((t, j) => {
        phi = mul(phi, div(oW[j], qtx[j].weight[t]));
      });
      for (const [s, count] of g) byNode.set(s, add(byNode.get(s) || ZERO, mul(phi, Q(count))));
    }
    let total = ZERO;
    const joint = new Array(sa.nLeaves).fill(ZERO);
    for (const [s, f] of byNode) {
      total = add(total, f);
      for (let a = sa.lo[s]; a < sa.hi[s]; a++) {
        joint[a] = add(joint[a], mul(f, div(sa.leafWeight[a], sa.weight[s])));
      }
    }
    const margins = joint.map((x) => sub(mul(omt, total), x));
    const share = (v, a) => (sa.lo[v] <= a && a < sa.hi[v] ? div(sa.leafWeight[a], sa.weight[v]) : ZERO);

    // Theorem 1 for each sensitive value v on o[SA]'s chain: lo <= phi_QI <= hi, exactly.
    const saChain = sa.chain(oc[m]);
    const bounds = saChain.map((v) => {
      let hi = null;
      let lo = null;
      for (let a = 0; a < sa.nLeaves; a++) {
        const c = sub(share(v, a), omt);
        const M = margins[a];
        if (c.n === 0n) {
          if (M.n < 0n) return null; // no phi satisfies 0 <= M_a
        } else {
          const b = div(M, c);
          if (c.n > 0n) {
            if (hi === null || cmp(b, hi) < 0) hi = b;
          } else if (lo === null || cmp(b, lo) > 0) {
            lo = b;
          }
        }
      }
      return { lo, hi };
    });
    const feasible = (j, phi) => {
      const b = bounds[j];
      return b !== null && (b.hi === null || cmp(phi, b.hi) <= 0) && (b.lo === null || cmp(phi, b.lo) >= 0);
    };

    const chains = qtx.map((tx, j) => tx.chain(oc[j]));
    const shape = chains.map((c) => c.length);
    const factors = chains.map((ch, j) => ch.map((v) => div(oW[j], qtx[j].weight[v])));
    const { tables, scale } = lossTables(survey, loss);
    const qLoss = chains.map((ch, j) => ch.map((v) => tables[j][v]));
    const saLoss = saChain.map((v) => tables[m][v]);
    const phiOf = (steps) => {
      let phi = ONE;
      for (let k = 0; k < m; k++) phi = mul(phi, factors[k][steps[k]]);
      return phi;
    };

    let best = null; // {loss, phi, steps, j}
    const better = (c, b) => {
      if (c.loss !== b.loss) return c.loss < b.loss;
      const p = cmp(c.phi, b.phi);
      if (p !== 0) return p > 0;
      for (let k = 0; k < m; k++) if (c.steps[k] !== b.steps[k]) return c.steps[k] < b.steps[k];
      return c.j < b.j;
    };
    if (mode === "greedy") {
      best = greedy(m, chains, qtx, qLoss, saLoss, bounds, phiOf, better);
      if (best === null) best = search(m, chains, factors, qLoss, saLoss, bounds, better);
    } else {
      const nq = shape.reduce((a, b) => a * b, 1);
      if (nq > EXACT_LIMIT) {
        throw new Error(
          `exact GTR would enumerate ${nq} quasi-identifier generalizations (limit ${EXACT_LIMIT}); ` +
            "use mode greedy for taxonomies this large",
        );
      }
      const steps = new Array(m).fill(0);
      for (let q = 0; q < nq; q++) {
        let rest = q;
        for (let k = m - 1; k >= 0; k--) {
          steps[k] = rest % shape[k];
          rest = Math.floor(rest / shape[k]);
        }
        let ql = 0n;
        for (let k = 0; k < m; k++) ql += qLoss[k][steps[k]];
        if (best !== null && ql + saLoss[0] > best.loss) continue; // saLoss[0] is the least
        let phi = null;
        for (let j = 0; j < saChain.length; j++) {
          const l = ql + saLoss[j];
          if (best !== null && l > best.loss) continue;
          if (bounds[j] === null) continue;
          if (phi === null) {
            phi = ONE;
            for (let k = 0; k < m; k++) phi = mul(phi, factors[k][steps[k]]);
          }
          if (!feasible(j, phi)) continue;
          const cand = { loss: l, phi, steps: steps.slice(), j };
          if (best === null || better(cand, best)) best = cand;
        }
      }
    }
    if (best === null) return null;
    const codes = [...best.steps.map((s, k) => chains[k][s]), saChain[best.j]];
    const v = saChain[best.j];
    let top = ZERO;
    for (let a = 0; a < sa.nLeaves; a++) {
      const pr = add(joint[a], mul(best.phi, share(v, a)));
      if (cmp(pr, top) > 0) top = pr;
    }
    const pv = sub(ONE, div(top, add(total, best.phi)));
    const exactWouldProtect = codes.map((c, k) => {
      if (c === oc[k]) return null;
      if (k === m) return feasible(0, best.phi); // saChain[0] is o's own sensitive value
      const steps = best.steps.slice();
      steps[k] = 0;
      return feasible(best.j, phiOf(steps));
    });
    return {
      attributes: survey.attributes.slice(),
      codes,
      labels: codes.map((c, j) => txs[j].label[c]),
      loss: qToString(Q(best.loss, scale)),
      phi: toNumber(best.phi),
      pv: qToString(pv),
      pvNumber: toNumber(pv),
      exactWouldProtect,
    };
  }

  return {
    EXACT_LIMIT,
    buildSurvey,
    buildTaxonomy,
    decodeCollected,
    encodeBase,
    gtr,
    parseTau,
    valueKey,
  };
});
