import{a,b,c,d,e,f}from"./chunk-5LKY6AIC.js";import"./chunk-VLP42OEH.js";export{b as DER,a as DERErr,c as _splitEndoScalar,e as ecdh,f as ecdsa,d as weierstrass};
