"use strict";(self.rspackChunkml_foundations_validate=self.rspackChunkml_foundations_validate||[]).push([[0],{14(e,r,t){var o=t(15),a=t.n(o),n=t(16),i=(t.n(n))()(a());i.push([e.id,`/* The course's Validate button and its dialog (src/index.js). */

.course-validate-control {
  display: flex;
  align-items: center;
  height: 24px;
  padding: 0 6px;
  border: none;
  border-radius: var(--jp-border-radius);
  background: transparent;
  color: var(--jp-ui-font-color1);
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1);
  cursor: pointer;
}

.course-validate-control:hover:enabled {
  background: var(--jp-layout-color2);
}

.course-validate-control:disabled {
  color: var(--jp-ui-font-color2);
  cursor: progress;
}

.course-validate {
  max-width: 80ch;
  font-size: var(--jp-ui-font-size1);
}

.course-validate-failures {
  margin: 0 0 1em;
  padding-left: 1.5em;
}

.course-validate-failure + .course-validate-failure {
  margin-top: 0.8em;
}

/* what went wrong: the first thing a student reads */
.course-validate-message {
  font-weight: 600;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  color: var(--jp-error-color1);
}

.course-validate-test {
  color: var(--jp-ui-font-color2);
}

.course-validate-details summary {
  cursor: pointer;
  color: var(--jp-ui-font-color2);
}

.course-validate pre {
  max-height: 16em;
  overflow: auto;
  padding: 4px 6px;
  background: var(--jp-layout-color2);
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}

.course-validate-headline {
  font-weight: 600;
}

.course-validate-notes {
  color: var(--jp-ui-font-color2);
  padding-left: 1.5em;
}
`,""]),t.d(r,{},{A:i})},16(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var t="",o=void 0!==r[5];return r[4]&&(t+="@supports (".concat(r[4],") {")),r[2]&&(t+="@media ".concat(r[2]," {")),o&&(t+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),t+=e(r),o&&(t+="}"),r[2]&&(t+="}"),r[4]&&(t+="}"),t}).join("")},r.i=function(e,t,o,a,n){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(o)for(var s=0;s<this.length;s++){var c=this[s][0];null!=c&&(i[c]=!0)}for(var u=0;u<e.length;u++){var l=[].concat(e[u]);o&&i[l[0]]||(void 0!==n&&(void 0===l[5]||(l[1]="@layer".concat(l[5].length>0?" ".concat(l[5]):""," {").concat(l[1],"}")),l[5]=n),t&&(l[2]&&(l[1]="@media ".concat(l[2]," {").concat(l[1],"}")),l[2]=t),a&&(l[4]?(l[1]="@supports (".concat(l[4],") {").concat(l[1],"}"),l[4]=a):l[4]="".concat(a)),r.push(l))}},r}},15(e){e.exports=function(e){return e[1]}},7(e,r,t){t.r(r);var o=t(8),a=t.n(o),n=t(9),i=t.n(n),s=t(10),c=t.n(s),u=t(11),l=t.n(u),d=t(12),p=t.n(d),f=t(13),v=t.n(f),m=t(14),h={};h.styleTagTransform=v(),h.setAttributes=l(),h.insert=c().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=p(),a()(m.A,h);let g=m.A&&m.A.locals?m.A.locals:void 0;t.d(r,{},{default:g})},8(e){var r=[];function t(e){for(var t=-1,o=0;o<r.length;o++)if(r[o].identifier===e){t=o;break}return t}function o(e,o){for(var a={},n=[],i=0;i<e.length;i++){var s=e[i],c=o.base?s[0]+o.base:s[0],u=a[c]||0,l="".concat(c," ").concat(u);a[c]=u+1;var d=t(l),p={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==d)r[d].references++,r[d].updater(p);else{var f=function(e,r){var t=r.domAPI(r);return t.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&t.update(e=r):t.remove()}}(p,o);o.byIndex=i,r.splice(i,0,{identifier:l,updater:f,references:1})}n.push(l)}return n}e.exports=function(e,a){var n=o(e=e||[],a=a||{});return function(e){e=e||[];for(var i=0;i<n.length;i++){var s=t(n[i]);r[s].references--}for(var c=o(e,a),u=0;u<n.length;u++){var l=t(n[u]);0===r[l].references&&(r[l].updater(),r.splice(l,1))}n=c}}},10(e){var r={};e.exports=function(e,t){var o=function(e){if(void 0===r[e]){var t=document.querySelector(e);if(window.HTMLIFrameElement&&t instanceof window.HTMLIFrameElement)try{t=t.contentDocument.head}catch(e){t=null}r[e]=t}return r[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(t)}},12(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},11(e,r,t){e.exports=function(e){var r=t.nc;r&&e.setAttribute("nonce",r)}},9(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(t){var o,a,n;o="",t.supports&&(o+="@supports (".concat(t.supports,") {")),t.media&&(o+="@media ".concat(t.media," {")),(a=void 0!==t.layer)&&(o+="@layer".concat(t.layer.length>0?" ".concat(t.layer):""," {")),o+=t.css,a&&(o+="}"),t.media&&(o+="}"),t.supports&&(o+="}"),(n=t.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),e.styleTagTransform(o,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},13(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}}}]);