// The zh_CN site only. Sphinx 9.0's Chinese search data (language_data.js) ends with
// `window.Stemmer = ChineseStemmer`, a class it never defines: Chinese search stems Latin words
// with the English stemmer, so search stops with a ReferenceError
// (https://github.com/sphinx-doc/sphinx/issues/14229, fixed by sphinx-doc/sphinx#14416 after
// 9.0.4). Loaded before language_data.js, this defines it as the English one.
"use strict";
function ChineseStemmer() {
  return new EnglishStemmer();
}
