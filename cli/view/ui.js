/* placeholder: the user interface is written elsewhere */
var CubeUI = {
  start: function (el) {
    var d = JSON.parse(el.textContent);
    document.getElementById('status').textContent = d.file + ': ' + d.metrics.length + ' metrics';
  }
};
document.addEventListener('DOMContentLoaded', function () {
  CubeUI.start(document.getElementById('cube-data'));
});
