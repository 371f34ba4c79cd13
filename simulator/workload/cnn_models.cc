// The zoo's convolutional networks, layer by layer as torchvision (ResNet-50, DenseNet-121) and the
// LeNet-5 of LeCun et al. (1998, with full C3 connections) define them.
#include <string>

#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {

Model lenet5() {
  Model model;
  model.name = "lenet5";
  model.description = "LeNet-5, MNIST padded to 1x32x32";
  model.sample_unit = "image";
  auto& layers = model.layers;
  layers.push_back(conv("conv1", 1, 32, 32, 6, 5, 5, 1, 0, true));
  layers.push_back(activation("tanh1", "tanh", 6 * 28 * 28));
  layers.push_back(pool("pool1", "avgpool", 6, 28, 28, 2, 2, 0));
  layers.push_back(conv("conv2", 6, 14, 14, 16, 5, 5, 1, 0, true));
  layers.push_back(activation("tanh2", "tanh", 16 * 10 * 10));
  layers.push_back(pool("pool2", "avgpool", 16, 10, 10, 2, 2, 0));
  layers.push_back(conv("conv3", 16, 5, 5, 120, 5, 5, 1, 0, true));
  layers.push_back(activation("tanh3", "tanh", 120));
  layers.push_back(input_already_saved(linear("fc1", 1, 120, 84, true)));
  layers.push_back(activation("tanh4", "tanh", 84));
  layers.push_back(input_already_saved(linear("fc2", 1, 84, 10, true)));
  layers.push_back(cross_entropy("loss", 1, 10));
  return model;
}

// ResNet-50 v1.5: the stride-2 of a downsampling bottleneck sits in its 3x3 convolution.
Model resnet50() {
  Model model;
  model.name = "resnet50";
  model.description = "ResNet-50 v1.5, ImageNet 224x224";
  model.sample_unit = "image";
  auto& layers = model.layers;
  layers.push_back(conv("conv1", 3, 224, 224, 64, 7, 7, 2, 3, false));
  layers.push_back(batchnorm("bn1", 64, 112, 112));
  layers.push_back(activation("relu", "relu", 64 * 112 * 112));
  layers.push_back(pool("maxpool", "maxpool", 64, 112, 112, 3, 2, 1));

  struct Stage {
    int blocks;
    std::int64_t width;
    std::int64_t stride;
  };
  const Stage stages[] = {{3, 64, 1}, {4, 128, 2}, {6, 256, 2}, {3, 512, 2}};
  std::int64_t channels = 64;
  std::int64_t size = 56;
  for (int s = 0; s < 4; ++s) {
    const Stage& stage = stages[s];
    for (int b = 0; b < stage.blocks; ++b) {
      const std::string prefix = "layer" + std::to_string(s + 1) + "." + std::to_string(b) + ".";
      const std::int64_t width = stage.width;
      const std::int64_t out_channels = 4 * width;
      const std::int64_t stride = b == 0 ? stage.stride : 1;
      const std::int64_t out_size = conv_output_size(size, 3, stride, 1);
      // The block input is the previous block's saved ReLU output, except after the max pool.
      Layer conv1 = conv(prefix + "conv1", channels, size, size, width, 1, 1, 1, 0, false);
      layers.push_back(s == 0 && b == 0 ? conv1 : input_already_saved(conv1));
      layers.push_back(batchnorm(prefix + "bn1", width, size, size));
      layers.push_back(activation(prefix + "relu1", "relu", width * size * size));
      layers.push_back(
          input_already_saved(conv(prefix + "conv2", width, size, size, width, 3, 3, stride, 1, false)));
      layers.push_back(batchnorm(prefix + "bn2", width, out_size, out_size));
      layers.push_back(activation(prefix + "relu2", "relu", width * out_size * out_size));
      layers.push_back(input_already_saved(
          conv(prefix + "conv3", width, out_size, out_size, out_channels, 1, 1, 1, 0, false)));
      layers.push_back(batchnorm(prefix + "bn3", out_channels, out_size, out_size));
      if (b == 0) {
        layers.push_back(input_already_saved(
            conv(prefix + "downsample.0", channels, size, size, out_channels, 1, 1, stride, 0, false)));
        layers.push_back(batchnorm(prefix + "downsample.1", out_channels, out_size, out_size));
      }
      const std::int64_t outputs = out_channels * out_size * out_size;
      layers.push_back(add(prefix + "add", outputs, 2, true));
      layers.push_back(activation(prefix + "relu3", "relu", outputs));
      channels = out_channels;
      size = out_size;
    }
  }
  layers.push_back(pool("avgpool", "avgpool", 2048, 7, 7, 7, 1, 0));
  layers.push_back(linear("fc", 1, 2048, 1000, true));
  layers.push_back(cross_entropy("loss", 1, 1000));
  return model;
}

// DenseNet-121 (growth rate 32, bottleneck width 4 x 32, compression 0.5), torchvision's non-memory-efficient
// variant: every dense layer concatenates all earlier feature maps of its block into a new tensor.
Model densenet121() {
  Model model;
  model.name = "densenet121";
  model.description = "DenseNet-121, ImageNet 224x224";
  model.sample_unit = "image";
  auto& layers = model.layers;
  layers.push_back(conv("features.conv0", 3, 224, 224, 64, 7, 7, 2, 3, false));
  layers.push_back(batchnorm("features.norm0", 64, 112, 112));
  layers.push_back(activation("features.relu0", "relu", 64 * 112 * 112));
  layers.push_back(pool("features.pool0", "maxpool", 64, 112, 112, 3, 2, 1));

  constexpr std::int64_t kGrowth = 32;
  constexpr std::int64_t kBottleneck = 4 * kGrowth;
  const int block_layers[] = {6, 12, 24, 16};
  std::int64_t channels = 64;
  std::int64_t size = 56;
  for (int b = 0; b < 4; ++b) {
    const std::string block = "features.denseblock" + std::to_string(b + 1) + ".";
    for (int l = 0; l < block_layers[b]; ++l) {
      const std::string prefix = block + "denselayer" + std::to_string(l + 1) + ".";
      const std::int64_t area = size * size;
      layers.push_back(concat(prefix + "concat", channels * area, l + 1));
      layers.push_back(batchnorm(prefix + "norm1", channels, size, size));
      layers.push_back(activation(prefix + "relu1", "relu", channels * area));
      layers.push_back(
          input_already_saved(conv(prefix + "conv1", channels, size, size, kBottleneck, 1, 1, 1, 0, false)));
      layers.push_back(batchnorm(prefix + "norm2", kBottleneck, size, size));
      layers.push_back(activation(prefix + "relu2", "relu", kBottleneck * area));
      layers.push_back(
          input_already_saved(conv(prefix + "conv2", kBottleneck, size, size, kGrowth, 3, 3, 1, 1, false)));
      channels += kGrowth;
    }
    // The block returns the concatenation of all its feature maps.
    layers.push_back(concat(block + "concat", channels * size * size, block_layers[b] + 1));
    if (b == 3) break;
    const std::string transition = "features.transition" + std::to_string(b + 1) + ".";
    layers.push_back(batchnorm(transition + "norm", channels, size, size));
    layers.push_back(activation(transition + "relu", "relu", channels * size * size));
    layers.push_back(input_already_saved(
        conv(transition + "conv", channels, size, size, channels / 2, 1, 1, 1, 0, false)));
    layers.push_back(pool(transition + "pool", "avgpool", channels / 2, size, size, 2, 2, 0));
    channels /= 2;
    size /= 2;
  }
  layers.push_back(batchnorm("features.norm5", channels, size, size));
  layers.push_back(activation("features.relu5", "relu", channels * size * size));
  layers.push_back(pool("avgpool", "avgpool", channels, size, size, size, 1, 0));
  layers.push_back(linear("classifier", 1, channels, 1000, true));
  layers.push_back(cross_entropy("loss", 1, 1000));
  return model;
}

}  // namespace simtrain::workload::zoo
