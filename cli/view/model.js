/* placeholder: the model is written elsewhere */
var CubeModel = {};
